"""The RobustMIS 2019 design, from seed `004` Appendix A.6 (and §5.3).

Three tasks, as in the design: binary segmentation, multiple instance detection
and multiple instance segmentation. Text is the design document's, abridged
where long, including its UPDATE passages (the F1 score replaced average
precision for detection because participants submitted no class scores). Case
counts are those A.6 reports after the update: 5,983 training cases and 4,057
test cases in three stages (663 + 514 + 2,880; §5.3 prints 415 for Stage 2, a
typo against A.6's 225 + 289). A.6 adds that frames without an instrument were
removed for the two segmentation tasks without giving the reduced counts; the
details say so. The organization section is withheld in the seed; those values
are labelled demo placeholders. The design is silent on interaction level
handling and on the challenge outcome (a proposal has none yet), which stay
unanswered.
"""

from __future__ import annotations

from typing import Any

from .answers import PLACEHOLDER, NotApplicable, lines, unit_metric

NAME = "Robust Medical Instrument Segmentation Challenge 2019"
STATUS = "draft"
CO_ORGANIZERS: tuple[str, ...] = ("coorganizer",)

PLANNING = {
    "duration": "half day",
    "expected_participants": 15,
}

_LABELING = (
    "https://www.synapse.org/Portal/filehandle?ownerId=syn18779624&ownerType=ENTITY"
    "&fileName=LabelingInstructions.pdf&preview=false&wikiId=592660"
)

CHALLENGE: dict[int, Any] = {
    2: "https://www.synapse.org/#!Synapse:syn18779624",
    3: {
        "institutions": [
            "German Cancer Research Center (DKFZ)",
            "Heidelberg University Hospital, Department of Surgery",
        ],
        "contact": {
            "name": "RobustMIS challenge office",
            "email": "robustmis-demo@example.org",
        },
        "details": PLACEHOLDER
        + " The first institution is the demo organizer's, the second the data "
        "center named in appendix A.6 of Reinke's thesis; the contact is fictional.",
    },
    4: {
        "choice": "one-time event with fixed submission deadline",
        "details": "Part of MICCAI 2019 (Reinke's thesis, section 5.3); appendix "
        "A.6 of the thesis mentions a docker "
        "submission deadline after which the unknown surgery type is made public.",
    },
    5: "MICCAI 2019, Shenzhen, China (Reinke's thesis, section 5.3: 'The RobustMIS "
    "challenge was part "
    "of the MICCAI conference 2019'); run on the Synapse platform.",
    6: {
        "events": [
            {"date": "2019-06-01", "event": "Release of the training data"},
            {"date": "2019-09-15", "event": "Docker submission deadline"},
            {
                "date": "2019-09-16",
                "event": "Surgery type of Stage 3 (UNKNOWN SURGERY) made public",
            },
            {
                "date": "2019-10-13",
                "event": "Results announced at the MICCAI 2019 challenge session",
            },
        ],
        "details": PLACEHOLDER
        + " The events are those appendix A.6 of Reinke's thesis refers to.",
    },
    7: PLACEHOLDER + " Videos were recorded during daily routine procedures at "
    "Heidelberg University Hospital under the ethics approval of the hospital's "
    "ethics committee; the data are fully anonymized.",
    8: PLACEHOLDER + " Data released for research under CC BY-NC-SA 4.0; "
    "participants accept the terms on Synapse before download.",
    9: {
        "choice": "fully automatic",
        "details": "Methods are submitted as docker containers and run by the "
        "organizers on the hidden test data (Reinke's thesis, section 5.3: 'We "
        "required challenge "
        "participants to submit their methods as docker containers').",
    },
    10: {
        "choice": "organizers may participate but are not eligible for awards",
        "details": PLACEHOLDER,
    },
    11: {
        "choice": "provided training data and publicly available data",
        "details": PLACEHOLDER
        + " Teams are asked to declare whether temporal and/or additional training "
        "data were used (Reinke's thesis, section 4.4.2).",
    },
    12: "No validation cases are provided by the organizers; hence, it is up to "
    "the challenge participants to split the training and validation data.",
    13: "Rankings and ranking stability are computed with the open-source R "
    "toolkit challengeR (Reinke's thesis, section 5.3).",
    14: {
        "choices": ["docker container"],
        "details": "Docker containers submitted on the Synapse platform, to avoid "
        "cheating (Reinke's thesis, section 5.3).",
    },
    15: "Only participants who submit a method description along with their "
    "algorithm are eligible for the final rankings; a method write-up template is "
    "provided: https://www.synapse.org/#!Synapse:syn18779624/wiki/592664 "
    "(Reinke's thesis, section 4.4.2).",
}

_COMMON_TASK: dict[int, Any] = {
    16: {"choices": ["intervention assistance"], "details": ""},
    18: "Patients undergoing minimally invasive surgery.",
    19: "Medical instruments: an elongated rigid object put into the patient and "
    "then manipulated directly from outside the patient. Examples: grasper, "
    "scalpel, trocar. Counterexamples: non-rigid tubes, bandage, needle (not "
    f"directly manipulated from outside). Labeling instructions: {_LABELING}",
    20: "An abdomen shown in laparoscopic video data.",
    21: lines(
        "1) Identify robust methods for instrument detection, binary instrument "
        "segmentation and multiple instance segmentation.",
        "2) Assess generalization capabilities of the methods proposed.",
        "3) Identify which image properties (e.g. smoke, bleeding, motion "
        "artifacts) make images particularly challenging to process.",
    ),
    22: "Patients undergoing rectal resection, proctocolectomy or UNKNOWN SURGERY "
    "(made public after the docker submission deadline; sigmoid resection, "
    "Reinke's thesis, section 5.3).",
    23: lines(
        "Corresponding to the image data: a whole surgical video and information "
        "on the type of surgery performed is provided for each training case. No "
        "additional information is given for the test cases.",
        "Corresponding to the patient in general: none.",
    ),
    24: "Heidelberg University Hospital, Department of Surgery.",
    25: {
        "choices": ["endoscopy", "video"],
        "details": "Laparoscopic video.",
    },
    26: "Laparoscopic camera Karl Storz Image 1 with a 30° optic (Karl Storz SE & "
    "Co KG); light source Karl Storz Xenon 300.",
    27: "Data acquisition took place during daily routine procedures with the "
    "integrated operating room (Karl Storz OR1 FUSION). Video data was anonymized "
    "by excluding parts of the video displaying parts outside the abdomen. Image "
    "resolution was downscaled from 1920 × 1080 (HD) to 960 × 540.",
    28: "No characteristics available due to fully anonymized data.",
    29: lines(
        "30 procedures (10 rectal resection, 10 proctocolectomy, 10 UNKNOWN "
        "SURGERY); 10,040 extracted frames. All 10 procedures of UNKNOWN SURGERY "
        "are reserved for testing in Stage 3. Of the remaining 20 procedures, 80 % "
        "are used for training and 20 % (two per type, those with the fewest "
        "annotated frames) for testing in Stage 2. For Stage 1, every 10th "
        "annotated case of the remaining 16 training procedures is used.",
        "Explanation: all data of one surgery type were reserved for testing "
        "(Stage 3) to test generalization; the ratio 80 %/20 % (Stage 2) is "
        "commonly used in challenges.",
    ),
    30: lines(
        "Multi-stage manual annotation:",
        "1. Initialization: the company UnderstandAI extracted the video frames and "
        "did an initial segmentation.",
        "2. Refinement: the organizers identified inconsistencies and agreed on an "
        "annotation protocol; a team of 15 engineers refined all annotations "
        "accordingly.",
        "3. Quality control: a medical expert reported potential errors, which an "
        "engineer corrected.",
        "4. Final check: a medical expert checked the refined annotations together "
        "with the engineer.",
    ),
    31: {
        "count": 5983,
        "details": "2,943 proctocolectomy and 3,040 rectal resection cases. No "
        "validation cases are provided. For the segmentation tasks, cases without "
        "an instrument were removed (reduced count not stated in appendix A.6 of "
        "Reinke's thesis).",
    },
    32: "A training case encompasses a 10-second video snippet of 250 endoscopic "
    "image frames and a reference annotation for the last frame; the entire "
    "corresponding video and the surgery type are provided as context. Further "
    "important characteristics: none.",
    33: f"Annotation protocol (labeling instructions): {_LABELING}",
    34: "The company UnderstandAI (initial segmentation); a team of 15 engineers "
    "(refinement); a medical expert (quality control and final check).",
    35: "In ambiguous/unclear cases, a team of two engineers and one medical "
    "student generated a consensus annotation.",
    36: "For each frame to be segmented, the 249 previous frames were also "
    "extracted. All frames were saved as .png using python-opencv2; the 249 video "
    "frames were compressed using .zip. The annotation masks were stored as binary "
    "images in .png format. Identical for training and test data.",
    37: "Same multi-stage annotation as for the training cases (initialization by "
    "UnderstandAI, refinement by engineers, quality control and final check by a "
    "medical expert).",
    38: {
        "count": 4057,
        "details": "Stage 1: 663 (325 proctocolectomy, 338 rectal resection; "
        "patients seen in training); Stage 2: 514 (225 proctocolectomy, 289 rectal "
        "resection; new patients); Stage 3: 2,880 (UNKNOWN SURGERY). For the "
        "segmentation tasks, cases without an instrument were removed (reduced "
        "count not stated in appendix A.6 of Reinke's thesis).",
    },
    39: "The test cases are identical in format to the training cases (250 frames) "
    "but do not include a reference annotation or context information. Three "
    "stages of increasing difficulty: same patients, new patients of the same "
    "surgery types, and a different but similar surgery type.",
    40: f"Same annotation protocol as for the training cases: {_LABELING}",
    41: "As for the training cases: UnderstandAI, a team of 15 engineers, and a "
    "medical expert.",
    42: "In ambiguous/unclear cases, a team of two engineers and one medical "
    "student generated a consensus annotation.",
    43: "As each case was analyzed by multiple annotators, errors in annotation "
    "can mainly be attributed to image quality (i.e. the inherent ambiguity of "
    "the problem when relying solely on the image data).",
    48: "Missing cases are set to the worst possible value, namely 0 for all "
    "metrics (NaN metric values are set to 0 before ranking).",
    49: "Ranking stability will be investigated via bootstrapping (1,000 bootstrap "
    "samples, Kendall's tau between the original and bootstrap rankings) and "
    "hypothesis testing, as identified as an appropriate approach to investigate "
    "ranking variability [Maier-Hein et al., 2018].",
}

_SEGMENTATION_RANKING = lines(
    "An accuracy ranking and a robustness ranking are computed for each metric m "
    "separately, on the test cases T = {t_1, …, t_N} of a task and stage:",
    "1. For all teams a_i and test cases t_j: if m(a_i, t_j) is NaN, set it to 0.",
    "2. Accuracy: the test-based ranking (Wilcoxon signed-rank test, alpha = "
    "0.05) yields the accuracy rank r_a(a_i).",
    "3. Robustness: the 5 % percentile of all m(a_i, t_j) of an algorithm gives "
    "the robustness rank r_r(a_i) (aggregate-then-rank).",
    "This yields four rankings per task: accuracy and robustness for each of the "
    "two metrics. Separate rankings for accuracy and robustness are computed for "
    "Stage 3. Justification: to address multiple aspects of the challenge "
    "purpose, and a ranking scheme that tends to group algorithms in case of minor "
    "performance differences.",
)

_SEGMENTATION_TESTS = (
    "Wilcoxon signed-rank tests between pairs of algorithms (alpha = 0.05) for the "
    "accuracy ranking; bootstrapping and hypothesis testing to investigate ranking "
    "stability. Further analyses: performance gain from ensembling the algorithms; "
    "common problems of the submitted methods."
)

_SEGMENTATION_JUSTIFICATION = (
    "We based our design choice regarding the metrics (MI) DSC and (MI) NSD on the "
    "Medical Segmentation Decathlon (MSD)."
)

BINARY_SEGMENTATION: dict[int, Any] = {
    **_COMMON_TASK,
    17: {
        "choices": ["segmentation"],
        "details": "Binary segmentation: '0' indicates the absence of a medical "
        "instrument and '1' represents a medical instrument.",
    },
    44: {
        "metrics": [unit_metric("DSC"), unit_metric("NSD")],
        "details": "Dice Similarity Coefficient (DSC) and Normalized Surface "
        "Distance (NSD); NSD threshold tau = 13 pixels, based on inter-rater "
        "variability (Reinke's thesis, section 5.3).",
    },
    45: _SEGMENTATION_JUSTIFICATION,
    46: _SEGMENTATION_RANKING,
    50: _SEGMENTATION_TESTS,
}

MULTI_INSTANCE_DETECTION: dict[int, Any] = {
    **_COMMON_TASK,
    17: {
        "choices": ["detection"],
        "details": "Multiple instance detection: instances '1', '2', … of medical "
        "instruments; only a rough localization (bounding boxes) is required.",
    },
    44: {
        "metrics": [unit_metric("F1 score")],
        "details": "UPDATE: object-level F1 score over the complete data set: "
        "matching matrix of IoU between reference and predicted instances, "
        "m_ij < 0.3 set to 0 ('no match'); Hungarian algorithm assigns predicted "
        "to reference instances; matches are TP, unmatched reference instances FN, "
        "unmatched predictions FP.",
    },
    45: "UPDATE: We could not use standard object detection metrics such as the "
    "Average Precision (AP), as we did not require participants to submit "
    "predicted class scores. Thus, we chose another common per-class counting "
    "metric, namely the F1 score.",
    46: "The F1 score is computed over the complete data set, giving one value per "
    "participant, which determines the ranking (one ranking per stage). The "
    "computation of the F1 score already involves an indirect ranking scheme "
    "because only one value per participant is generated.",
    50: NotApplicable(
        "'For the multiple instance detection task, the computation of the F1 "
        "Score is done over the complete data set. This results in one F1 Score "
        "per participant' (Reinke's thesis, appendix A.6), so no per-case test "
        "compares algorithms."
    ),
}

MULTI_INSTANCE_SEGMENTATION: dict[int, Any] = {
    **_COMMON_TASK,
    17: {
        "choices": ["segmentation"],
        "details": "Multiple instance segmentation: '0' indicates the absence of an "
        "instrument; '1', '2', … represent different instances of medical "
        "instruments.",
    },
    44: {
        "metrics": [unit_metric("MI DSC"), unit_metric("MI NSD")],
        "details": "Multi-Instance DSC and Multi-Instance NSD: DSC and NSD per "
        "instance after matching (IoU > 0.3, Hungarian matching), aggregated with "
        "the mean (Reinke's thesis, section 5.3).",
    },
    45: _SEGMENTATION_JUSTIFICATION,
    46: _SEGMENTATION_RANKING,
    50: _SEGMENTATION_TESTS,
}

TASKS: dict[str, dict[int, Any]] = {
    "Binary segmentation": BINARY_SEGMENTATION,
    "Multiple instance detection": MULTI_INSTANCE_DETECTION,
    "Multiple instance segmentation": MULTI_INSTANCE_SEGMENTATION,
}
