"""The Medical Segmentation Decathlon (MSD) design, from seed `004` Appendix A.7.

Tasks. The design document itself says "The challenge is composed of two tasks:
the development and the mystery phase", and its ranking scheme (also seed `003`)
produces exactly one final ranking per phase: the mean of the significance ranks
over the seven development data sets and over the three mystery data sets. In
this registry a task is "a dedicated ranking with its own parameters", so the
demo has two tasks, *Development phase* and *Mystery phase*; the organ data sets
(brain, heart, …; colon, hepatic vessel, spleen) and their regions of interest
are the targets inside each task, described per data set in the answers. One task
per data set would have invented ten rankings the challenge never computed.

Text is the design document's, abridged where long. Case counts are the sums of
the per-data-set counts of A.7 (each listed in the details). The organization
section (website aside, which A.7 names) is withheld in the seed; those values
are labelled demo placeholders. The design is silent on operators and on the
challenge outcome (51–53: a proposal has none yet), so these stay unanswered.
"""

from __future__ import annotations

from typing import Any

from .answers import PLACEHOLDER, NotApplicable, lines, unit_metric

NAME = "Medical Segmentation Decathlon"
STATUS = "draft"  # demo.story takes it through review to analysis
CO_ORGANIZERS: tuple[str, ...] = ()

PLANNING = {
    "duration": "half day",
    "expected_participants": 20,
    "publication": (
        "Invented for the demonstration: joint journal paper of organizers and top "
        "teams; the "
        "data remain available (Reinke's thesis, section 5.3 cites Antonelli/Reinke et "
        "al., 2022)."
    ),
}

CHALLENGE: dict[int, Any] = {
    2: "http://medicaldecathlon.com",
    3: {
        "institutions": [
            "German Cancer Research Center (DKFZ)",
            "King's College London",
        ],
        "contact": {"name": "MSD challenge office", "email": "msd-demo@example.org"},
        "details": PLACEHOLDER
        + " Institutions are those of the demo accounts; the contact is fictional.",
    },
    4: {
        "choice": "one-time event with fixed submission deadline",
        "details": "Held once at MICCAI 2018 (Reinke's thesis, section 5.3), with a "
        "development phase "
        "and a mystery phase in which algorithms 'could only be submitted once'.",
    },
    5: "MICCAI 2018, Granada, Spain (Reinke's thesis, section 5.3: 'We organized the "
    "MSD challenge "
    "as part of the MICCAI conference 2018'). Website: http://medicaldecathlon.com.",
    6: {
        "events": [
            {
                "date": "2018-05-01",
                "event": "Release of the seven development-phase data sets "
                "(training cases and test images)",
            },
            {"date": "2018-07-31", "event": "Development-phase submission deadline"},
            {
                "date": "2018-08-01",
                "event": "Release of the three mystery-phase data sets to teams "
                "with a valid development-phase submission",
            },
            {
                "date": "2018-08-31",
                "event": "Mystery-phase submission deadline (one submission)",
            },
            {
                "date": "2018-09-16",
                "event": "Results announced at the MICCAI 2018 challenge session",
            },
        ],
        "details": PLACEHOLDER
        + " The phases and their order follow Reinke's thesis, section 5.3.",
    },
    7: PLACEHOLDER + " The ten data sets were acquired retrospectively by the "
    "contributing centers (see Center(s)) under their own ethics approvals and "
    "released in anonymized form.",
    8: PLACEHOLDER + " Data released under CC BY-SA 4.0: it may be shared and "
    "adapted with attribution, under the same license.",
    9: {
        "choice": "fully automatic",
        "details": "Reinke's thesis, section 5.3: the goal was 'a semantic "
        "segmentation algorithm that "
        "worked for a wide range of various tasks and data without requiring the "
        "model to be changed or any human interaction'.",
    },
    10: {
        "choice": "organizers may participate but are not eligible for awards",
        "details": PLACEHOLDER,
    },
    11: {
        "choice": "only the provided training data",
        "details": PLACEHOLDER,
    },
    12: "Development phase: 'The algorithms were evaluated on the hidden test sets "
    "and participants could follow their scores on a daily basis to avoid model "
    "overfitting' (Reinke's thesis, section 5.3). Mystery phase: no pre-evaluation; "
    "algorithms 'could "
    "only be submitted once'.",
    13: "The full validation (ranking) algorithm was released before the challenge "
    "on the website (http://medicaldecathlon.com/files/MSD-Ranking-scheme.pdf). "
    "Ranking uncertainty is analysed with the open-source R toolkit challengeR.",
    14: {
        "choices": ["results files", "online platform upload"],
        "details": PLACEHOLDER
        + " Segmentation results of the test cases are uploaded to the website.",
    },
    15: "Only teams that successfully participated in the development phase "
    "receive the mystery-phase data; there, algorithms can be submitted only once "
    "(Reinke's thesis, section 5.3).",
}

_COMMON_TASK: dict[int, Any] = {
    16: {
        "choices": [
            "diagnosis",
            "prognosis",
            "treatment planning",
            "intervention planning",
            "assistance",
            "surgery",
            "computer-aided diagnosis",
            "research",
        ],
        "details": "Treatment planning, Assistance, Intervention planning, CAD, "
        "Diagnosis, Surgery, Prognosis, Research.",
    },
    17: {"choices": ["segmentation"], "details": ""},
    21: lines(
        "Generalizability.",
        "The hypothesis: 'a method capable of performing well on multiple tasks "
        "will generalize well to a previously unseen task and potentially "
        "outperform a custom-designed solution'.",
    ),
    23: lines(
        "Context information corresponding to the image data: None.",
        "Context information corresponding to the patient in general: None.",
    ),
    29: "70 % training data and 30 % test data (per data set). The test cases are "
    "hidden from the participants.",
    32: "Each case is one image volume (see Definition of cases). Further important "
    "characteristics: full annotation (pixel level).",
    33: "Specific instructions from each center.",
    35: NotApplicable(
        "The design describes one reference annotation per case by an expert or "
        "expert team ('Annotation protocol: Specific instructions from each "
        "center'); no merging of multiple annotations is described."
    ),
    36: "To pre-process data we used FSL library functions. All images were "
    "transposed (without resampling) to the most approximate right-anterior-"
    "superior coordinate frame, ensuring the data matrix x-y-z direction was "
    "consistent, using fslreorient2std. Non-quantitative modalities (e.g. MRI) "
    "were robust min-max scaled to the same range by means of a mixture of "
    "fsl_maths and fsl_stats.",
    37: "Same as for the training cases: the reference annotations of training and "
    "test cases were produced in the same way per data set (see Category of "
    "training data generation method).",
    40: "Specific instructions from each center (as for the training cases).",
    42: NotApplicable(
        "As for the training cases, one reference annotation per case; the design "
        "describes no merging of multiple annotations."
    ),
    43: "Data from several centers/devices and raters may cause inconsistencies.",
    45: "The metrics DSC and NSD were chosen due to their popularity, rank "
    "stability, and smooth, well-understood and well-defined behavior when ROIs "
    "do not overlap. Having simple and rank-stable metrics also allows the "
    "statistical comparison between methods. The proposed metrics are not "
    "task-specific nor task-optimal, and thus do not fulfill the necessary "
    "criteria for clinical algorithmic validation of each task.",
    47: NotApplicable(
        "Only fully automatic methods take part: the goal is an algorithm that "
        "works 'without requiring the model to be changed or any human "
        "interaction' (Reinke's thesis, section 5.3), so there are no interaction "
        "levels to handle."
    ),
    48: "Missing cases are set to the worst possible value, namely 0 for all "
    "metrics (also: 'Set m_j(a_l, t_ik) to 0 if its value is undefined').",
    49: "To investigate ranking uncertainty and stability, bootstrapping methods "
    "will be applied with 1,000 bootstrap samples, using the open-source R toolkit "
    "challengeR. The original rankings of the development and mystery phases are "
    "compared with the rankings of the individual bootstrap samples via Kendall's "
    "tau (-1: reverse order, 1: identical order). NSD tolerances reflect what the "
    "clinicians consider an acceptable error.",
    50: "Wilcoxon signed-rank pairwise tests between algorithms on the per-case "
    "metric differences, per comparison alpha = 0.05, not adjusted for "
    "multiplicity (used for the significance ranking); bootstrap analysis of "
    "ranking stability with Kendall's tau. Justification of the ranking method: "
    "successfully applied in other well-known challenges; it favors groups of "
    "algorithms rather than single ones and takes the hierarchical structure of "
    "the data into account.",
}


def _metrics(tolerances: str) -> dict:
    return {
        "metrics": [unit_metric("DSC"), unit_metric("NSD")],
        "details": "Overlap-based metric: Dice Similarity Coefficient (DSC); "
        "boundary-based metric: Normalized Surface Distance (NSD). NSD tolerances "
        "were chosen by the clinicians segmenting each organ, as the error they "
        f"consider acceptable (in mm): {tolerances}.",
    }


def _ranking(phase: str, count: str) -> str:
    return lines(
        "A significance score s_ij(a) is determined for each algorithm a, "
        "separately for each task/target ROI c_i and metric m_j in {DSC, NSD}:",
        "1. Performance per case: compute m_j(a_l, t_ik) for all algorithms and "
        "all test cases; set it to 0 if undefined.",
        "2. Statistical tests: Wilcoxon signed-rank pairwise tests between "
        "algorithms on the differences m_j(a_l, t_ik) - m_j(a_l', t_ik).",
        "3. Significance scoring: s_ij(a_l) is the number of algorithms performing "
        "significantly worse than a_l (per comparison alpha = 0.05, not adjusted "
        "for multiplicity).",
        "4. Significance ranking: rank by score, highest score = rank 1; shared "
        "ranks are possible. For a data set with several target ROIs, the scheme "
        "is applied per ROI and the data set's rank is the mean significance rank.",
        f"The final score of each algorithm for the {phase} is the average of the "
        f"significance ranks over its {count} data sets. The full validation "
        "algorithm was defined and released before the start of the challenge "
        "(http://medicaldecathlon.com/files/MSD-Ranking-scheme.pdf).",
    )


DEVELOPMENT: dict[int, Any] = {
    **_COMMON_TASK,
    18: lines(
        "Brain: brain tumor patients with diagnostic MRI scans (T1-weighted, "
        "T1-weighted contrast-enhanced and T2-weighted FLAIR 3D acquisitions).",
        "Heart: patients undergoing heart scans.",
        "Hippocampus: adults with a non-affective psychotic disorder.",
        "Liver: liver cancer patients with visible tumors.",
        "Lung: patients with non-small cell lung cancer.",
        "Pancreas: pancreas cancer patients with visible tumors and cystic lesions.",
        "Prostate: prostate cancer patients.",
    ),
    19: "Brain tumors (edema, enhancing and non-enhancing tumor), left atrium, "
    "anterior and posterior of hippocampus, liver and liver tumor, lung tumor, "
    "pancreas and pancreatic tumor mass, prostate peripheral zone (PZ) and "
    "transition zone (TZ).",
    20: "Brain, heart, hippocampus, liver, lung, pancreas, prostate.",
    22: lines(
        "Brain: patients diagnosed with either glioblastoma or lower-grade glioma "
        "(multiparametric MRI).",
        "Heart: patients from MRI scans of the entire heart acquired during a "
        "single cardiac phase (free breathing with respiratory and ECG gating).",
        "Hippocampus: healthy adults and adults with a non-affective psychotic "
        "disorder undergoing a T1-weighted MPRAGE.",
        "Liver: patients with primary cancers and metastatic liver disease, as a "
        "consequence of colorectal, breast, and lung primary cancers.",
        "Lung: patients with non-small cell lung cancer.",
        "Pancreas: patients undergoing resection of pancreatic masses.",
        "Prostate: prostate cancer patients undergoing multiparametric MRI.",
    ),
    24: lines(
        "Brain: 18 institutions, among them CBICA (University of Pennsylvania), "
        "University of Alabama at Birmingham, Heidelberg University, University "
        "Hospital of Bern, University of Debrecen, MD Anderson Cancer Center, Mayo "
        "Clinic, Tata Memorial Centre; institutions 6–16 via The Cancer Imaging "
        "Archive.",
        "Heart: King's College London.",
        "Hippocampus: Vanderbilt University Medical Center.",
        "Liver: IRCAD Hôpitaux Universitaires.",
        "Lung: several centers (The Cancer Imaging Archive).",
        "Pancreas: Memorial Sloan Kettering Cancer Center.",
        "Prostate: Radboud University, Nijmegen Medical Centre.",
    ),
    25: {
        "choices": ["CT", "MRI"],
        "details": "Brain, prostate: multiparametric MRI; heart, hippocampus: MRI; "
        "liver, lung, pancreas: CT.",
    },
    26: lines(
        "Brain: various devices, scanners from 1T to 3T.",
        "Heart: 1.5T Achieva scanner (Philips Healthcare, Best, The Netherlands).",
        "Hippocampus: Philips Achieva scanner (Philips Healthcare).",
        "Liver, lung, pancreas, prostate: various devices.",
    ),
    27: lines(
        "Brain: routine clinical scans from different equipment and protocols at "
        "19 institutions; co-registered to the SRI24 atlas, resampled to 1 mm³ "
        "isotropic voxels and skull-stripped.",
        "Heart: voxel resolution 1.25 × 1.25 × 2.7 mm³.",
        "Hippocampus: 3D T1-weighted MPRAGE (TI/TR/TE 860/8.0/3.7; 170 sagittal "
        "slices; voxel size 1.0 mm³).",
        "Liver: in-plane resolution 0.5–1.0 mm, slice thickness 0.45–6.0 mm; some "
        "images contain metal artifacts.",
        "Lung: pre-operative thin-section CT (section thickness < 1.5 mm, 120 kVp, "
        "sharp reconstruction kernel).",
        "Pancreas: 120 kVp, axial slices reconstructed at 2.5 mm intervals.",
        "Prostate: transverse T2-weighted scans (0.6 × 0.6 × 4 mm) and apparent "
        "diffusion coefficient map (2 × 2 × 4 mm).",
    ),
    30: lines(
        "Manual or semi-automatic annotation by experts, per data set:",
        "Brain: reference annotations of all tumor sub-regions approved by expert "
        "board-certified neuroradiologists.",
        "Heart: segmented by an expert using an automated tool followed by manual "
        "correction.",
        "Liver: annotations of the liver and tumors by radiologists.",
        "Lung: tumor region denoted by an expert thoracic radiologist (OsiriX).",
        "Pancreas: parenchyma and mass manually segmented slice by slice by an "
        "expert abdominal radiologist (Scout application).",
        "Hippocampus, prostate: annotations by expert raters.",
    ),
    31: {
        "count": 1276,
        "details": "Brain 484 (4D), heart 20, hippocampus 263, liver 131, lung 64, "
        "pancreas 282, prostate 32 (4D).",
    },
    34: "Brain: expert board-certified neuroradiologists (approval); heart: an "
    "expert; hippocampus and prostate: expert raters; liver: radiologists; lung: "
    "an expert thoracic radiologist; pancreas: an expert abdominal radiologist.",
    38: {
        "count": 664,
        "details": "Brain 266 (4D), heart 10, hippocampus 131, liver 70, lung 32, "
        "pancreas 139, prostate 16 (4D).",
    },
    39: "Brain and prostate: training and test cases both represent a 4D mp-MRI "
    "image. Heart and hippocampus: a 3D MRI image. Liver, lung and pancreas: a 3D "
    "CT image. Test cases come without reference annotation. Full annotation "
    "(pixel level).",
    41: "As for the training cases: brain: board-certified neuroradiologists; "
    "heart: an expert; hippocampus, prostate: expert raters; liver: radiologists; "
    "lung: an expert thoracic radiologist; pancreas: an expert abdominal "
    "radiologist.",
    44: _metrics(
        "brain 5, heart 4, hippocampus 1, liver 7, lung 2, prostate 4, pancreas 5"
    ),
    46: _ranking("development phase", "seven"),
}

MYSTERY: dict[int, Any] = {
    **_COMMON_TASK,
    18: lines(
        "Colon: patients undergoing resection of primary colon cancer.",
        "Hepatic vessel: patients with a variety of primary and metastatic liver "
        "tumors.",
        "Spleen: patients undergoing chemotherapy treatment for liver metastases.",
    ),
    19: "Colon cancer primaries, hepatic vessel and hepatic tumor, spleen. The "
    "three tasks are unseen during the development phase.",
    20: "Colon, hepatic vessel, spleen (abdomen shown in CT).",
    22: lines(
        "Colon: patients undergoing resection of primary colon cancer.",
        "Hepatic vessel: patients with a variety of primary and metastatic liver "
        "tumors.",
        "Spleen: patients undergoing chemotherapy treatment for liver metastases.",
    ),
    24: "Colon, hepatic vessel and spleen: Memorial Sloan Kettering Cancer Center.",
    25: {"choices": ["CT"], "details": "Colon, hepatic vessel, spleen: CT."},
    26: "Colon, hepatic vessel, spleen: various devices have been used to acquire "
    "the data.",
    27: lines(
        "Colon: 100–140 kVp; exposure time 500–1,782 ms; tube current 100–752 mA; "
        "slice thickness 1–7.5 mm; reconstruction diameter 274–500 mm.",
        "Hepatic vessel and spleen: 120 kVp; exposure time 500–1,100 ms; tube "
        "current 33–440 mA; section thickness 2.5–5 mm, standard convolutional "
        "kernel, reconstruction diameter 360–500 mm; iodinated contrast material "
        "(150 mL Omnipaque 300) administered intravenously at 1–4 cc/s.",
    ),
    30: lines(
        "Colon: manually segmented using ITK-SNAP by an expert radiologist in body "
        "imaging.",
        "Hepatic vessel: semi-automatically segmented with the Scout application "
        "(seed point grown with a level-set approach); contours manually adjusted "
        "by an expert abdominal radiologist.",
        "Spleen: semi-automatically segmented with the Scout application (spline "
        "grown with a level-set approach); contours manually adjusted by an expert "
        "abdominal radiologist.",
    ),
    31: {
        "count": 470,
        "details": "Colon 126, hepatic vessel 303, spleen 41. Released only to "
        "teams that successfully participated in the development phase.",
    },
    34: "Colon: an expert radiologist in body imaging; hepatic vessel and spleen: "
    "an expert abdominal radiologist.",
    38: {"count": 224, "details": "Colon 64, hepatic vessel 140, spleen 20."},
    39: "Colon, hepatic vessel and spleen: training and test cases both represent "
    "a 3D CT image. Test cases come without reference annotation. Full annotation "
    "(pixel level).",
    41: "As for the training cases: colon: an expert radiologist in body imaging; "
    "hepatic vessel and spleen: an expert abdominal radiologist.",
    44: _metrics("colon 4, hepatic vessel 3, spleen 3"),
    46: _ranking("mystery phase", "three"),
}

TASKS: dict[str, dict[int, Any]] = {
    "Development phase": DEVELOPMENT,
    "Mystery phase": MYSTERY,
}
