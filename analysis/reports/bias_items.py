"""The BIAS reporting checklist (seed 004, Appendix A.8: items 1–42 with their
sub-items), abridged to what each item asks for, as data for the report.

When the registry's catalogue copy (``registry.bias_checklist``) is present it
is the one source and is used instead of the local list below.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BIAS_ITEMS", "ChecklistItem"]


@dataclass(frozen=True)
class ChecklistItem:
    id: str
    text: str


_LOCAL: tuple[tuple[str, str], ...] = (
    (
        "1",
        "Title conveys the challenge mission: a biomedical image analysis "
        "challenge, image modality and task category.",
    ),
    ("2", "Summary of the challenge purpose, design and results; main conclusions."),
    ("3", "Primary keywords that characterize the challenge."),
    ("4a", "Introduction to the topic from a biomedical point of view."),
    ("4b", "Introduction to the topic from a technical point of view."),
    ("4c", "Concise statement of the primary challenge objective and the task."),
    ("5a", "Representative name of the challenge."),
    ("5b", "Acronym of the challenge."),
    ("6", "Organizing team (names and affiliations)."),
    ("7", "Intended submission cycle of the challenge."),
    ("8a", "Event (e.g. conference) associated with the challenge."),
    ("8b", "Platform used to run the challenge."),
    ("8c", "URL of the challenge website."),
    ("9a", "Allowed user interaction of the algorithms assessed."),
    ("9b", "Policy on the usage of training data."),
    ("9c", "Participation policy for members of the organizers' institutes."),
    ("9d", "Award policy."),
    ("9e", "Policy for results announcement."),
    ("9f", "Publication policy."),
    ("10a", "Method used for result submission; submission instructions."),
    ("10b", "Possibility to evaluate algorithms before submitting final results."),
    ("11", "Timetable of the challenge."),
    ("12", "Ethics approval for the data."),
    ("13", "Data usage agreement and license."),
    ("14a", "Accessibility of the organizers' evaluation software."),
    ("14b", "Accessibility of the participating teams' code."),
    ("15", "Conflicts of interest, funding, and who had access to the test labels."),
    ("16", "Contributions of all authors."),
    ("17", "Main field(s) of application the algorithms target."),
    ("18", "Task category(ies)."),
    ("19a", "Target cohort."),
    ("19b", "Challenge cohort."),
    ("20", "Imaging technique(s) applied."),
    ("21a", "Context information on the image data."),
    ("21b", "Context information on the patient in general."),
    ("21c", "Context information on the acquisition process."),
    ("22a", "Data origin (region(s) of the subjects imaged)."),
    ("22b", "Algorithm target (structure(s) the algorithms focus on)."),
    ("23", "Assessment aim(s): the properties of the algorithms to be optimized."),
    ("24a", "Device(s) used to acquire the challenge data."),
    ("24b", "Details on the imaging process / acquisition protocol(s)."),
    ("24c", "Center(s) in which the data was acquired or the data source."),
    ("24d", "Characteristics of the subjects/objects involved in the acquisition."),
    ("25a", "What is meant by one case in this challenge."),
    (
        "25b",
        "Total number of cases and numbers of training, validation and test cases.",
    ),
    ("25c", "Why this number of cases and these proportions were chosen."),
    (
        "25d",
        "Further important characteristics of the training, validation and test cases.",
    ),
    ("26a", "Method for determining the reference annotation; number of annotators."),
    ("26b", "Instructions given to the annotators."),
    ("26c", "Details on the annotators (e.g. level of expertise)."),
    ("26d", "Method(s) used to merge multiple annotations for one case."),
    ("27", "Pre-processing of the data provided to the participants."),
    ("28a", "Possible error sources related to the image annotation."),
    ("28b", "Other relevant sources of error."),
    (
        "29a",
        "Metric(s) assessing the algorithms; which metric(s) computed the ranking.",
    ),
    ("29b", "Why the metric(s) were chosen."),
    ("30a", "Method used to compute the ranking from the metric results."),
    ("30b", "Method(s) used to manage submissions with missing results."),
    ("30c", "Why the ranking scheme(s) were used."),
    (
        "31a",
        "Statistical methods used in the challenge analysis (missing data, "
        "ranking variability, software).",
    ),
    ("31b", "Why the statistical method(s) were used."),
    ("32a", "Number of registrations."),
    ("32b", "Number of participating teams that provided valid submissions."),
    ("32c", "Number of participating teams that the paper refers to."),
    ("33a", "Team identifier."),
    ("33b", "Method description of each participating team."),
    (
        "34",
        "Raw and/or aggregated metric values with a measure of variability, and "
        "the number of test set submissions, for each team.",
    ),
    (
        "35a",
        "The ranking(s), including the number of test set submissions of each team.",
    ),
    ("35b", "Results of the statistical analyses."),
    (
        "36",
        "Further analyses, e.g. ensembling, inter-algorithm variability, common "
        "problems, ranking variability.",
    ),
    ("37", "Summary of the main results of the challenge."),
    ("38a", "Expected biomedical impact of the challenge."),
    ("38b", "Expected technical impact of the challenge."),
    ("39a", "Whether the task is now solved in a satisfactory way."),
    ("39b", "Analysis of individual cases in which most algorithms performed poorly."),
    ("39c", "Advantages and disadvantages of the submitted methods."),
    ("40", "Limitations of the challenge design and execution."),
    ("41", "Recommendations for future work and maintenance plans."),
    ("42", "Concise conclusion based on the results."),
)


def _load() -> tuple[ChecklistItem, ...]:
    try:
        from registry import bias_checklist
    except ImportError:
        return tuple(ChecklistItem(id=i, text=t) for i, t in _LOCAL)
    return tuple(
        ChecklistItem(id=item.id, text=item.text) for item in bias_checklist.BIAS_ITEMS
    )


BIAS_ITEMS: tuple[ChecklistItem, ...] = _load()
