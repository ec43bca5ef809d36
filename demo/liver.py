"""A liver lesion detection challenge, invented for the demonstration.

Unlike MSD and RobustMIS this design quotes no published document: every value
is plausible but made up, so a newcomer has a proposal that is still *under
review* (see `demo.story.put_under_review`): one task with an executable ranking
scheme and a test-set plan beside its number of test cases, submitted, two
technical reviewers and one clinical reviewer assigned, and one review
(reviewer2's) already in. The prose parameters the scheme writes
(rank computation, missing data, uncertainty, statistical tests) are left to it;
the challenge outcome (51–53) is given after the challenge, so it stays
unanswered, as in the other demo designs.
"""

from __future__ import annotations

from typing import Any

from .answers import NotApplicable, lines, unit_metric

NAME = "Liver Lesion Detection in Portal-Venous CT 2027"
STATUS = "draft"  # demo.story puts it under review
CO_ORGANIZERS: tuple[str, ...] = ()
INVENTED = "Invented for the demonstration; no real challenge stands behind it."
TASK = "Lesion detection"

PLANNING = {
    "duration": "half day",
    "expected_participants": 25,
    "publication": "Joint paper of organizers and the top five teams; test "
    "annotations stay hidden for a later open phase. " + INVENTED,
}

CHALLENGE: dict[int, Any] = {
    2: "https://liver-lesions.example.org",
    3: {
        "institutions": [
            "German Cancer Research Center (DKFZ)",
            "Technical University of Munich",
        ],
        "contact": {
            "name": "LiLeD challenge office",
            "email": "liled-demo@example.org",
        },
        "details": INVENTED
        + " The first institution is the demo organizer's; the contact is fictional.",
    },
    4: {
        "choice": "one-time event with fixed submission deadline",
        "details": "Held once at MICCAI 2027; an open post-challenge phase may "
        "follow on the same test data.",
    },
    5: "MICCAI 2027 challenge session; submissions on grand-challenge.org.",
    6: {
        "events": [
            {"date": "2027-04-15", "event": "Release of the training data"},
            {"date": "2027-06-15", "event": "Validation leaderboard opens"},
            {"date": "2027-08-01", "event": "Docker submission deadline"},
            {"date": "2027-09-20", "event": "Results at the MICCAI 2027 session"},
        ],
        "details": INVENTED,
    },
    7: "Retrospective use of routine CT approved by the ethics committees of the "
    "three contributing centers; informed consent waived; all images anonymized "
    "before leaving the centers. " + INVENTED,
    8: "Training data under CC BY-NC 4.0 for research; test images are never "
    "released. Participants sign the data usage agreement on registration.",
    9: {
        "choice": "fully automatic",
        "details": "Containers are run by the organizers on the hidden test set "
        "without human interaction.",
    },
    10: {
        "choice": "organizers may participate but are not ranked",
        "details": "Organizer teams appear on the leaderboard, marked, outside the "
        "ranking.",
    },
    11: {
        "choice": "provided training data and publicly available data",
        "details": "Public data sets (e.g. LiTS) are allowed if declared in the "
        "method description.",
    },
    12: "A validation leaderboard on 30 training-like cases, one submission per "
    "team and day; the final test set is used once.",
    13: "Evaluation code (lesion matching and F1) is published on the challenge "
    "website before the training data are released.",
    14: {
        "choices": ["docker container"],
        "details": "One container per team that writes one point list per case.",
    },
    15: "Teams submit a container and a four-page method description; only teams "
    "with both are ranked.",
}

TASKS: dict[str, dict[int, Any]] = {
    TASK: {
        16: {
            "choices": ["diagnosis", "treatment planning", "computer-aided diagnosis"],
            "details": "Staging and follow-up of liver malignancy.",
        },
        17: {"choices": ["detection"], "details": ""},
        18: "Adults referred for contrast-enhanced abdominal CT for staging or "
        "follow-up of known or suspected liver malignancy.",
        19: "Focal liver lesions of at least 5 mm longest axial diameter "
        "(metastases, hepatocellular carcinoma, cholangiocarcinoma, cysts, "
        "hemangiomas, focal nodular hyperplasia); one point per lesion with a "
        "confidence.",
        20: "The liver in portal-venous phase abdominal CT.",
        21: lines(
            "1) Sensitivity for small lesions (< 10 mm) at few false positives.",
            "2) Robustness across scanners and centers.",
        ),
        22: "Consecutive adults scanned 2019–2024 at three centers, about 20 % "
        "of them without any liver lesion. " + INVENTED,
        23: lines(
            "Corresponding to the image data: center and scanner model.",
            "Corresponding to the patient in general: none (age and sex withheld).",
        ),
        24: "Three university hospitals (two in Germany, one in the Netherlands), "
        "named once the data-sharing agreements are signed. " + INVENTED,
        25: {"choices": ["CT"], "details": "Contrast-enhanced, portal-venous phase."},
        26: "Siemens SOMATOM Force, Philips IQon Spectral CT, GE Revolution CT.",
        27: "Portal-venous phase 70 s after 1.5 mL/kg iodinated contrast at "
        "3 mL/s; 100–120 kVp; 1–1.5 mm slices, soft-tissue kernel.",
        28: "Radiographers following each center's routine protocol.",
        29: "Per center 60 % training and 40 % test cases, stratified by lesion "
        "count (none, 1–3, more than 3); a patient is never split.",
        30: "Manual annotation of lesion centers and longest diameters by "
        "radiologists, with the arterial phase and follow-up imaging at hand; "
        "lesion types confirmed by histology, MRI or a one-year follow-up.",
        31: {
            "count": 360,
            "details": "120 volumes per center; 1,140 lesions; 74 volumes "
            "without a lesion.",
        },
        32: "One case is one portal-venous CT volume of one patient with the list "
        "of its lesion centers and diameters. Full annotation: every lesion of "
        "5 mm or more is marked.",
        33: "Written protocol: mark every focal lesion of 5 mm or more with its "
        "center and longest axial diameter; vessels and perfusion anomalies are "
        "not marked; uncertain findings are flagged.",
        34: "Two board-certified abdominal radiologists (8 and 12 years of "
        "experience), reading independently.",
        35: "Lesions marked by both readers are kept; a lesion marked by one "
        "reader is decided by a third, senior radiologist (20 years).",
        36: "Volumes converted from DICOM to NIfTI with anonymized headers; "
        "intensities kept in Hounsfield units; no resampling.",
        37: "As for the training cases, with a third reader for every case.",
        38: {
            "count": 240,
            "details": "80 volumes per center; 760 lesions; 49 volumes without "
            "a lesion.",
        },
        39: "One portal-venous CT volume per case without annotation; lesion "
        "types and sizes as in the training cases.",
        40: "The training protocol (see Annotation policy for training cases).",
        41: "Two abdominal radiologists and a senior radiologist as adjudicator.",
        42: "As for the training cases: agreement of two readers, the rest "
        "adjudicated by the senior radiologist.",
        43: "Readers miss small lesions; perfusion anomalies may be taken for "
        "lesions; lesions without histology rest on follow-up imaging.",
        44: {
            "metrics": [unit_metric("F1 score")],
            "details": "Lesion-level F1 per case: a predicted point is a true "
            "positive inside a reference lesion's radius (half its longest "
            "diameter, at least 5 mm), each reference lesion matched once. A case "
            "without lesions and without predictions scores 1. FROC curves are "
            "reported, not ranked.",
        },
        45: "F1 weighs missed lesions and false alarms alike, which matches the "
        "clinical cost of both in staging; per case it lets every patient count "
        "once, however many lesions they have.",
        47: NotApplicable(
            "Only fully automatic methods take part (interaction level policy), "
            "so there are no interaction levels to handle."
        ),
    },
}

# Per-case ranks of F1, averaged; a missing case scores the worst F1 (0).
SCHEME: dict[str, Any] = {
    "metric": "F1 score",
    "higher_is_better": True,
    "missing": {"policy": "value", "value": 0},
    "method": "rank_then_aggregate",
    "aggregate": "mean",
    "ties": "min",
    "uncertainty": {"bootstrap": 1000, "seed": 2027, "rank_ci": ["bootstrap"]},
}

# The test-set plan attached beside parameter 38 (issue 29): eight teams whose
# expected F1 scores are 0.015 apart, cases varying by 0.15 and hard for every
# team alike. Small (200 simulated challenges per n) so the demo loads fast; it
# recommends fewer cases than the 240 chosen, which a reviewer can check.
PLAN: dict[str, Any] = {
    "model": {
        "kind": "parametric",
        "algorithms": 8,
        "best": 0.78,
        "gap": 0.015,
        "sd": 0.15,
        "correlation": 0.6,
        "missing_rate": 0.0,
    },
    "n": [20, 40, 80, 160, 240, 320],
    "simulations": 200,
    "seed": 2027,
    "targets": {"p_winner": 0.9},
}

# The review reviewer2 has already submitted (keywords of reviews.submit_review).
SUBMITTED_REVIEW: dict[str, Any] = {
    "recommendation": "minor_revision",
    "confidence": 4,
    "comments": lines(
        "A clear, executable design: the ranking is pre-specified and a missing "
        "case scores the worst F1.",
        "Before acceptance: (1) say how a predicted point inside two overlapping "
        "lesion radii is matched; (2) lesion-free volumes all score 1 when left "
        "empty, so report F1 on the volumes with lesions as well.",
    ),
    "sections": {
        "Challenge data sets": {
            "score": 4,
            "comment": "Good multi-center split; name the centers before registration.",
        },
        "Assessment method": {
            "score": 3,
            "comment": "The matching rule needs a tie-break for overlapping radii.",
        },
    },
    "parameters": [
        {
            "number": 44,
            "task": TASK,
            "comment": "State the matching for overlapping lesion radii.",
        }
    ],
    "confidential": "I reviewed for a similar challenge in 2025; no conflict.",
}
