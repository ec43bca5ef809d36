"""The BIAS reporting guideline checklist (items 1–42 with sub-items), as data.

Wording follows Appendix A.8 of seed `004` (Maier-Hein et al., BIAS: Transparent
reporting of biomedical image analysis challenges); long items are abridged to
their first sentence(s), keeping what is asked for. `section` is the part of a
challenge report (title/abstract/keywords, introduction, methods, results,
discussion), `topic` the checklist's topic column (for the methods: prefixed with
the subsection). The parameter catalogue (`registry.parameters`) names the items
each parameter feeds in `Parameter.bias_items`; a report can list the items from
here without writing them out again.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BiasItem:
    id: str
    section: str
    topic: str
    text: str


_TAK = "Title, abstract, keywords"
_INTRO = "Introduction"
_METHODS = "Methods"
_RESULTS = "Results"
_DISC = "Discussion"

_ORG = "Challenge organization"
_MISSION = "Mission of the challenge"
_DATA = "Challenge data sets"
_ASSESS = "Assessment methods"


def _m(sub: str, topic: str) -> str:
    return f"{sub}: {topic}"


BIAS_ITEMS: tuple[BiasItem, ...] = tuple(
    BiasItem(*row)
    for row in (
        (
            "1",
            _TAK,
            "Title",
            "Use the title to convey the essential information on the challenge "
            "mission: identify the paper as a biomedical image analysis challenge and "
            "indicate the image modality(ies) and the task category with commonly "
            "used terms; optionally include the biomedical target application and "
            "the year for repeated challenges with fixed cycle.",
        ),
        (
            "2",
            _TAK,
            "Abstract",
            "Provide a summary of the challenge purpose, design and results and "
            "report the main conclusion(s).",
        ),
        (
            "3",
            _TAK,
            "Keywords",
            "List the primary keywords that characterize the challenge.",
        ),
        (
            "4a",
            _INTRO,
            "Challenge mission",
            "Provide a general introduction to the topic from a biomedical point of "
            "view, including the envisioned biomedical impact (short-term and/or "
            "long-term).",
        ),
        (
            "4b",
            _INTRO,
            "Challenge mission",
            "Provide a general introduction to the topic from a technical point of "
            "view, including an overview of the state of the art along the "
            "envisioned technical/methodological impact.",
        ),
        (
            "4c",
            _INTRO,
            "Challenge mission",
            "Based on the biomedical and technical motivation, provide a concise "
            "statement of the primary challenge objective, including a statement of "
            "the task.",
        ),
        (
            "5a",
            _METHODS,
            _m(_ORG, "Challenge name"),
            "Provide a representative name of the challenge. Example: MICCAI "
            "Endoscopic Vision Challenge 2015.",
        ),
        (
            "5b",
            _METHODS,
            _m(_ORG, "Challenge name"),
            "Provide the acronym of the challenge (if any). Example: EndoVis15.",
        ),
        (
            "6",
            _METHODS,
            _m(_ORG, "Organizing team"),
            "Provide information on the organizing team (names and affiliations).",
        ),
        (
            "7",
            _METHODS,
            _m(_ORG, "Life cycle type"),
            "Define the intended submission cycle of the challenge. Include "
            "information on whether/how the challenge has been/will be continued "
            "after the present study.",
        ),
        (
            "8a",
            _METHODS,
            _m(_ORG, "Challenge venue and platform"),
            "Report the event (e.g. conference) that was associated with the "
            "challenge (if any).",
        ),
        (
            "8b",
            _METHODS,
            _m(_ORG, "Challenge venue and platform"),
            "Report the platform (e.g. grand-challenge.org) used to run the challenge.",
        ),
        (
            "8c",
            _METHODS,
            _m(_ORG, "Challenge venue and platform"),
            "Provide the URL for the challenge website (if any).",
        ),
        (
            "9a",
            _METHODS,
            _m(_ORG, "Participation policies"),
            "Define the allowed user interaction of the algorithms assessed (e.g. "
            "only (semi-) automatic methods allowed).",
        ),
        (
            "9b",
            _METHODS,
            _m(_ORG, "Participation policies"),
            "Define the policy on the usage of training data. The data used to train "
            "algorithms may, for example, have been restricted to the data provided "
            "by the challenge or to publicly available data including (open) "
            "pre-trained nets.",
        ),
        (
            "9c",
            _METHODS,
            _m(_ORG, "Participation policies"),
            "Define the participation policy for members of the organizers' "
            "institutes. For example, members of the organizers' institutes could "
            "participate in the challenge but were not eligible for awards.",
        ),
        (
            "9d",
            _METHODS,
            _m(_ORG, "Participation policies"),
            "Define the award policy. In particular, provide details with respect to "
            "challenge prizes.",
        ),
        (
            "9e",
            _METHODS,
            _m(_ORG, "Participation policies"),
            "Define the policy for results announcement (e.g. top three performing "
            "methods were announced publicly; participating teams could choose "
            "whether the performance results will be made public).",
        ),
        (
            "9f",
            _METHODS,
            _m(_ORG, "Participation policies"),
            "Define the publication policy: who of the participating teams/members "
            "qualified as author, whether the participating teams could publish "
            "their own results separately, and whether an embargo time was defined.",
        ),
        (
            "10a",
            _METHODS,
            _m(_ORG, "Submission method"),
            "Describe the method used for result submission. If available, provide "
            "a link to the submission instructions (e.g. Docker container on the "
            "Synapse platform; algorithm output sent to organizers via e-mail).",
        ),
        (
            "10b",
            _METHODS,
            _m(_ORG, "Submission method"),
            "Provide information on the possibility for participating teams to "
            "evaluate their algorithms before submitting final results (e.g. "
            "multiple submissions of which only the last run counts).",
        ),
        (
            "11",
            _METHODS,
            _m(_ORG, "Challenge schedule"),
            "Provide a timetable for the challenge: release date(s) of the training "
            "cases, registration period, release date(s) of the test and validation "
            "cases, submission date(s), associated workshop days and release date(s) "
            "of the results.",
        ),
        (
            "12",
            _METHODS,
            _m(_ORG, "Ethics approval"),
            "Indicate whether ethics approval was necessary for the data. If yes, "
            "provide details on the ethics approval (institutional review board, "
            "location, date and number) and add the URL or a reference to the "
            "document of the ethics approval (if available).",
        ),
        (
            "13",
            _METHODS,
            _m(_ORG, "Data usage agreement"),
            "Clarify how the data can be used and distributed by the teams that "
            "participate in the challenge and by others, including the explicit "
            "listing of the license applied (e.g. CC BY, CC BY-SA, CC BY-NC-SA).",
        ),
        (
            "14a",
            _METHODS,
            _m(_ORG, "Code availability"),
            "Provide information on the accessibility of the organizers' evaluation "
            "software (e.g. code to produce rankings), preferably a link to the code "
            "and the supported platforms.",
        ),
        (
            "14b",
            _METHODS,
            _m(_ORG, "Code availability"),
            "In an analogous manner, provide information on the accessibility of the "
            "participating teams' code.",
        ),
        (
            "15",
            _METHODS,
            _m(_ORG, "Conflicts of interest"),
            "Provide information related to conflicts of interest, in particular "
            "sponsorship/funding of the challenge. Also, state explicitly who had "
            "access to the test case labels and when.",
        ),
        (
            "16",
            _METHODS,
            _m(_ORG, "Author contributions"),
            "List the contributions of all authors to the paper (preferably in the "
            "appendix).",
        ),
        (
            "17",
            _METHODS,
            _m(_MISSION, "Field(s) of application"),
            "State the main field(s) of application that the participating "
            "algorithms target (e.g. diagnosis, education, intervention assistance, "
            "intervention follow-up, intervention planning, prognosis, research, "
            "screening, training, cross-phase).",
        ),
        (
            "18",
            _METHODS,
            _m(_MISSION, "Task category(ies)"),
            "State the task category(ies) (e.g. classification, detection, "
            "localization, modeling, prediction, reconstruction, registration, "
            "retrieval, segmentation, tracking).",
        ),
        (
            "19a",
            _METHODS,
            _m(_MISSION, "Cohorts"),
            "Describe the target cohort, i.e. the subjects/objects from whom/which "
            "the data would be acquired in the final biomedical application.",
        ),
        (
            "19b",
            _METHODS,
            _m(_MISSION, "Cohorts"),
            "Describe the challenge cohort, i.e. the subject(s)/object(s) from "
            "whom/which the challenge data was acquired.",
        ),
        (
            "20",
            _METHODS,
            _m(_MISSION, "Imaging modality(ies)"),
            "Specify the imaging technique(s) applied in the challenge.",
        ),
        (
            "21a",
            _METHODS,
            _m(_MISSION, "Context information"),
            "Provide additional information given along with the images that "
            "corresponds directly to the image data (e.g. tumor volume).",
        ),
        (
            "21b",
            _METHODS,
            _m(_MISSION, "Context information"),
            "Provide additional information given along with the images that "
            "corresponds to the patient in general (e.g. gender, medical history).",
        ),
        (
            "21c",
            _METHODS,
            _m(_MISSION, "Context information"),
            "Provide additional information given along with the images that "
            "corresponds to the acquisition process (e.g. medical device data "
            "during endoscopic surgery, calibration data for an image modality).",
        ),
        (
            "22a",
            _METHODS,
            _m(_MISSION, "Target entity(ies)"),
            "Describe the data origin, i.e. the region(s)/part(s) of subject(s)/"
            "object(s) from whom/which the image data would be acquired in the "
            "final biomedical application (e.g. brain shown in CT data, abdomen "
            "shown in laparoscopic video data).",
        ),
        (
            "22b",
            _METHODS,
            _m(_MISSION, "Target entity(ies)"),
            "Describe the algorithm target, i.e. the structure(s)/subject(s)/"
            "object(s)/component(s) that the participating algorithms have been "
            "designed to focus on (e.g. tumor in the brain, tip of a medical "
            "instrument).",
        ),
        (
            "23",
            _METHODS,
            _m(_MISSION, "Assessment aim(s)"),
            "Identify the property(ies) of the algorithms to be optimized to perform "
            "well in the challenge. If multiple properties were assessed, "
            "prioritize them (if appropriate); the properties should be reflected in "
            "the metrics and the priorities in the ranking.",
        ),
        (
            "24a",
            _METHODS,
            _m(_DATA, "Data source(s)"),
            "Specify the device(s) used to acquire the challenge data, including "
            "the imaging devices (e.g. manufacturer) and additional devices used for "
            "performance assessment (e.g. tracking system used in a surgical "
            "setting).",
        ),
        (
            "24b",
            _METHODS,
            _m(_DATA, "Data source(s)"),
            "Describe relevant details on the imaging process/data acquisition for "
            "each acquisition device (e.g. image acquisition protocol(s)).",
        ),
        (
            "24c",
            _METHODS,
            _m(_DATA, "Data source(s)"),
            "Specify the center(s)/institute(s) in which the data was acquired "
            "and/or the data providing platform/source (e.g. previous challenge). "
            "If this information is not provided (e.g. for anonymization reasons), "
            "specify why.",
        ),
        (
            "24d",
            _METHODS,
            _m(_DATA, "Data source(s)"),
            "Describe relevant characteristics (e.g. level of expertise) of the "
            "subjects (e.g. surgeon)/objects (e.g. robot) involved in the data "
            "acquisition process (if any).",
        ),
        (
            "25a",
            _METHODS,
            _m(_DATA, "Training and test case characteristics"),
            "State what is meant by one case in this challenge: all data that is "
            "processed to produce one result that is then compared to the "
            "corresponding reference result (i.e. the desired algorithm output).",
        ),
        (
            "25b",
            _METHODS,
            _m(_DATA, "Training and test case characteristics"),
            "State the total number of cases as well as the number of training, "
            "validation and test cases separately.",
        ),
        (
            "25c",
            _METHODS,
            _m(_DATA, "Training and test case characteristics"),
            "Explain why a total number of cases and the specific proportion of "
            "training, validation and test cases was chosen.",
        ),
        (
            "25d",
            _METHODS,
            _m(_DATA, "Training and test case characteristics"),
            "Mention further important characteristics of the training, validation "
            "and test cases (e.g. class distribution chosen according to real-world "
            "distribution vs. equal class distribution) and justify the choice.",
        ),
        (
            "26a",
            _METHODS,
            _m(_DATA, "Annotation characteristics"),
            "Describe the method for determining the reference annotation, i.e. the "
            "desired algorithm output (e.g. manual image annotation, in silico "
            "ground truth generation, annotation by automatic methods). If human "
            "annotation was involved, state the number of annotators.",
        ),
        (
            "26b",
            _METHODS,
            _m(_DATA, "Annotation characteristics"),
            "Provide the instructions given to the annotators (if any) prior to the "
            "annotation, preferably with a link to the annotation protocol.",
        ),
        (
            "26c",
            _METHODS,
            _m(_DATA, "Annotation characteristics"),
            "Provide details on the subject(s)/algorithm(s) that annotated the cases "
            "(e.g. level of expertise such as number of years of professional "
            "experience, medically-trained or not).",
        ),
        (
            "26d",
            _METHODS,
            _m(_DATA, "Annotation characteristics"),
            "Describe the method(s) used to merge multiple annotations for one case "
            "(if any).",
        ),
        (
            "27",
            _METHODS,
            _m(_DATA, "Data pre-processing method(s)"),
            "Describe the method(s) used for pre-processing the raw training data "
            "before it is provided to the participating teams.",
        ),
        (
            "28a",
            _METHODS,
            _m(_DATA, "Sources of error"),
            "Describe the most relevant possible error sources related to the image "
            "annotation. If possible, estimate the magnitude (range) of these "
            "errors, using inter- and intra-annotator variability, for example.",
        ),
        (
            "28b",
            _METHODS,
            _m(_DATA, "Sources of error"),
            "In an analogous manner, describe and quantify other relevant sources of "
            "error.",
        ),
        (
            "29a",
            _METHODS,
            _m(_ASSESS, "Metric(s)"),
            "Define the metric(s) to assess a property of an algorithm, reflecting "
            "the assessment aim(s). State which metric(s) were used to compute the "
            "ranking(s) (if any).",
        ),
        (
            "29b",
            _METHODS,
            _m(_ASSESS, "Metric(s)"),
            "Justify why the metric(s) was/were chosen, preferably with reference to "
            "the biomedical application.",
        ),
        (
            "30a",
            _METHODS,
            _m(_ASSESS, "Ranking method(s)"),
            "Describe the method used to compute a performance rank for all "
            "submitted algorithms based on the metric results on the test cases, "
            "i.e. how results per case and metric are aggregated to arrive at a "
            "final score/ranking.",
        ),
        (
            "30b",
            _METHODS,
            _m(_ASSESS, "Ranking method(s)"),
            "Describe the method(s) used to manage submissions with missing results "
            "on test cases.",
        ),
        (
            "30c",
            _METHODS,
            _m(_ASSESS, "Ranking method(s)"),
            "Justify why the described ranking scheme(s) was/were used.",
        ),
        (
            "31a",
            _METHODS,
            _m(_ASSESS, "Statistical analyses"),
            "Provide details for all statistical methods used in the scope of the "
            "challenge analysis (e.g. missing data handling, assessment of the "
            "variability of rankings, checks of the assumptions of the statistical "
            "approach, software used for data analysis).",
        ),
        (
            "31b",
            _METHODS,
            _m(_ASSESS, "Statistical analyses"),
            "Justify why the described statistical method(s) was/were used.",
        ),
        (
            "32a",
            _RESULTS,
            "Challenge submissions",
            "Provide summarizing information on the number of registrations.",
        ),
        (
            "32b",
            _RESULTS,
            "Challenge submissions",
            "Provide summarizing information on the number of participating teams "
            "that provided valid submissions (if applicable in each phase).",
        ),
        (
            "32c",
            _RESULTS,
            "Challenge submissions",
            "Provide summarizing information on the number of participating teams "
            "that the paper refers to (with justification).",
        ),
        (
            "33a",
            _RESULTS,
            "Information on selected participating teams",
            "Team identifier.",
        ),
        (
            "33b",
            _RESULTS,
            "Information on selected participating teams",
            "A method description including parameter instantiation and/or a "
            "reference/URL to a document containing this information.",
        ),
        (
            "34",
            _RESULTS,
            "Metric values",
            "Provide raw and/or aggregated metric values (including measure of "
            "variability) for all participating teams and each metric, as well as "
            "the numbers of test set submissions for each participating team.",
        ),
        (
            "35a",
            _RESULTS,
            "Ranking(s)",
            "Report the ranking(s) (if any) including the number of test set "
            "submissions for each participating team.",
        ),
        (
            "35b",
            _RESULTS,
            "Ranking(s)",
            "Provide the results of the statistical analyses.",
        ),
        (
            "36",
            _RESULTS,
            "Further analyses",
            "Present results of further analyses (if applicable), e.g. related to "
            "combining algorithms via ensembling, inter-algorithm variability, "
            "common problems/biases of the submitted methods, or ranking "
            "variability.",
        ),
        ("37", _DISC, "Summary", "Summarize the main results of the challenge."),
        (
            "38a",
            _DISC,
            "Impact",
            "Describe the (expected) biomedical impact of the challenge in the "
            "context of the state of the art with reference to the challenge "
            "motivation.",
        ),
        (
            "38b",
            _DISC,
            "Impact",
            "Describe the (expected) technical impact of the challenge in the "
            "context of the state of the art with reference to the challenge "
            "motivation.",
        ),
        (
            "39a",
            _DISC,
            "Discussion of challenge results",
            "Provide a detailed discussion and conclusion whether the task is now "
            "solved in a satisfactory way (e.g. the remaining errors are comparable "
            "to inter-annotator variability).",
        ),
        (
            "39b",
            _DISC,
            "Discussion of challenge results",
            "Provide a detailed analysis of individual cases, in which the majority "
            "of algorithms performed poorly (if any).",
        ),
        (
            "39c",
            _DISC,
            "Discussion of challenge results",
            "Provide a discussion on advantages and disadvantages of the submitted "
            "methods, including time and memory consumption if time and memory were "
            "not among the metrics.",
        ),
        (
            "40",
            _DISC,
            "Limitations of the challenge",
            "Discuss limitations related to the challenge design and execution.",
        ),
        (
            "41",
            _DISC,
            "Future work",
            "Provide recommendations for future work and maintenance plans for the "
            "challenge and its website (if any).",
        ),
        (
            "42",
            _DISC,
            "Conclusions",
            "Provide a concise conclusion based on the results of the study.",
        ),
    )
)

BIAS_BY_ID: dict[str, BiasItem] = {item.id: item for item in BIAS_ITEMS}
SECTIONS: tuple[str, ...] = tuple(dict.fromkeys(item.section for item in BIAS_ITEMS))


def get_bias_item(item_id: str) -> BiasItem:
    """The checklist item with this id ("12", "26d"); KeyError names the range."""
    try:
        return BIAS_BY_ID[item_id]
    except KeyError:
        raise KeyError(
            f"No BIAS checklist item {item_id!r}; items are numbered 1–42 with "
            "sub-items a, b, c …"
        ) from None
