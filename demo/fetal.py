"""A fetal head biometry challenge, invented for the demonstration: a draft.

About two thirds of the parameters the call requires are answered, as an
organizer would leave a proposal mid-way, so the editor's completeness, the
design checks and the ranking scheme page have something to show: the one task
has no ranking scheme yet, its rank computation is prose that omits ties, no
uncertainty analysis is planned, one metric has no worst value and nothing says
how the two metrics combine; the organizer participation policy is unanswered.
"""

from __future__ import annotations

from typing import Any

from .answers import unit_metric

NAME = "Fetal Head Biometry in Ultrasound 2027"
STATUS = "draft"
CO_ORGANIZERS: tuple[str, ...] = ("coorganizer",)
INVENTED = "Invented for the demonstration; no real challenge stands behind it."
TASK = "Head circumference"

PLANNING = {"duration": "half day"}

CHALLENGE: dict[int, Any] = {
    2: "https://fetal-biometry.example.org",
    3: {
        "institutions": [
            "German Cancer Research Center (DKFZ)",
            "King's College London",
        ],
        "contact": {
            "name": "FeHB challenge office",
            "email": "fehb-demo@example.org",
        },
        "details": INVENTED
        + " The institutions are the demo organizers'; the contact is fictional.",
    },
    4: {"choice": "open call", "details": "A leaderboard that stays open."},
    5: "MICCAI 2027 challenge session; later an open leaderboard.",
    6: {
        "events": [
            {"date": "2027-05-01", "event": "Release of the training data"},
            {"date": "2027-08-15", "event": "Submission deadline"},
        ],
        "details": "Dates to be confirmed with the MICCAI 2027 chairs.",
    },
    9: {"choice": "fully automatic", "details": ""},
    11: {"choice": "only the provided training data", "details": ""},
    14: {"choices": ["results files"], "details": "One CSV per team."},
}

TASKS: dict[str, dict[int, Any]] = {
    TASK: {
        16: {"choices": ["diagnosis", "screening"], "details": ""},
        17: {"choices": ["segmentation"], "details": "An ellipse fitted to the skull."},
        18: "Pregnant women at the second-trimester anomaly scan.",
        19: "The fetal skull outline in the standard transthalamic plane; the "
        "head circumference derived from it.",
        20: "Fetal head in 2D B-mode ultrasound.",
        21: "Accurate head circumference for gestational age and growth.",
        22: "Singleton pregnancies, 18–24 weeks, at two centers. " + INVENTED,
        23: "Pixel spacing per image; no patient information.",
        24: "Two university hospitals (one in Germany, one in the UK). " + INVENTED,
        25: {"choices": ["ultrasound"], "details": "2D B-mode."},
        26: "GE Voluson E10 and Samsung HERA W10.",
        27: "Standard transthalamic plane as acquired in routine scans.",
        29: "70 % training, 30 % test, split by pregnancy.",
        31: {"count": 1000, "details": "One image per pregnancy."},
        32: "One 2D image per case with its pixel spacing and a skull ellipse.",
        33: "The sonographer's own ellipse, checked by a second sonographer.",
        38: {"count": 430, "details": "One image per pregnancy."},
        44: {
            "metrics": [
                unit_metric("DSC"),
                {
                    "name": "HC absolute difference",
                    "higher_is_better": False,
                    "lower_bound": 0,
                },
            ],
            "details": "DSC of the skull ellipse; absolute difference of the "
            "head circumference in mm.",
        },
        45: "DSC for the outline, the circumference difference for what the "
        "clinic measures.",
        46: "Algorithms are ranked by their mean absolute circumference "
        "difference over the test images.",
        48: "A missing image is given the worst value of each metric.",
    },
}
