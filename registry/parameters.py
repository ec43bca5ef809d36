"""The catalogue of the 53 challenge parameters — the ONE list in the code base.

Order, groups and names follow Table 4.5 of seed `004` (Table 1 of seed `002`);
`required_for_submission` marks the 40 parameters the structured submission
system asked for (`004` §5.1). Definitions follow the wording of the BIAS
reporting guideline (`004` Appendix A.8); examples are taken mostly from the MSD
and RobustMIS designs (`004` A.6/A.7); `bias_items` name the checklist items of
`registry.bias_checklist` that a parameter feeds. Forms, API, completeness,
exports and PDFs iterate over `PARAMETERS`; adding or changing a parameter is one
edit here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from .answer_kinds import KINDS

Level = Literal["challenge", "task"]


class Role(StrEnum):
    """What code reads a parameter for. Logic names a parameter by its role, never
    by its Table 4.5 number: the catalogue entry below says which one it is."""

    CHALLENGE_NAME = "challenge_name"
    ORGANIZING_INSTITUTIONS = "organizing_institutions"
    SCHEDULE = "schedule"  # data release dates (public record's quality profile)
    ORGANIZER_PARTICIPATION = "organizer_participation"
    TRAINING_POLICY = "training_policy"
    PRE_EVALUATION = "pre_evaluation"
    SUBMISSION_INSTRUCTIONS = "submission_instructions"
    FIELD_OF_APPLICATION = "field_of_application"
    TASK_CATEGORY = "task_category"
    IMAGING_MODALITY = "imaging_modality"
    ALGORITHM_TARGETS = "algorithm_targets"  # the structures (registry search)
    TEST_CASES = "test_cases"
    CONTEXT_INFORMATION = "context_information"  # names case characteristics
    TEST_CASE_CHARACTERISTICS = "test_case_characteristics"  # likewise
    METRICS = "metrics"
    RANKING_METHOD = "ranking_method"  # prose derived from the scheme
    MISSING_DATA = "missing_data"  # prose derived from the scheme
    UNCERTAINTY = "uncertainty"  # prose derived from the scheme
    STATISTICAL_TESTS = "statistical_tests"  # prose derived from the scheme

    @property
    def parameter(self) -> Parameter:
        return BY_ROLE[self]

    @property
    def number(self) -> int:
        return BY_ROLE[self].number


# The prose a task's ranking scheme writes (keys of `ranking.describe_scheme`): while
# the task has a scheme these answers are the scheme's, read-only in every interface.
SCHEME_PROSE: dict[Role, str] = {
    Role.RANKING_METHOD: "ranking",
    Role.MISSING_DATA: "missing",
    Role.UNCERTAINTY: "uncertainty",
    Role.STATISTICAL_TESTS: "tests",
}


@dataclass(frozen=True)
class Parameter:
    number: int
    group: str
    name: str
    level: Level
    kind: str
    required_for_submission: bool
    reported_2004_2016_pct: int
    definition: str
    examples: tuple[str, ...]
    bias_items: tuple[str, ...]
    choices: tuple[str, ...] = ()
    not_applicable_allowed: bool = True
    role: Role | None = None

    @property
    def key(self) -> str:
        """Stable identifier for form fields and HTML anchors (`p07`)."""
        return f"p{self.number:02d}"

    @property
    def example_value(self) -> Any:
        return KINDS[self.kind].example(choices=self.choices)

    def clean(self, value: Any) -> Any:
        """Validate and normalise a submitted value (raises ValidationError)."""
        return KINDS[self.kind].clean(value, choices=self.choices)

    def is_filled(self, value: Any) -> bool:
        return KINDS[self.kind].is_filled(value)

    def to_text(self, value: Any) -> str:
        return KINDS[self.kind].to_text(value)

    @property
    def derived_from_scheme(self) -> bool:
        """Written from the task's ranking scheme when the task has one."""
        return self.role in SCHEME_PROSE


PARAMETERS: tuple[Parameter, ...] = (
    Parameter(
        number=1,
        role=Role.CHALLENGE_NAME,
        group="Challenge organization",
        name="Challenge name",
        level="challenge",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=100,
        not_applicable_allowed=False,
        definition=(
            "The representative name of the challenge, with its acronym if any. Like a "
            "report title, it should identify a biomedical image analysis challenge and"
            " convey its mission (modality, task, target application, and the year for "
            "repeated challenges)."
        ),
        examples=(
            "Medical Segmentation Decathlon (MSD)",
            "Robust Medical Instrument Segmentation Challenge 2019 (RobustMIS 2019)",
            "MICCAI Endoscopic Vision Challenge 2015 (EndoVis15)",
        ),
        bias_items=("1", "5a", "5b"),
    ),
    Parameter(
        number=2,
        group="Challenge organization",
        name="Challenge website",
        level="challenge",
        kind="url",
        required_for_submission=True,
        reported_2004_2016_pct=99,
        definition=(
            "The URL of the challenge website, where the design, data access, "
            "submission instructions and results are published."
        ),
        examples=(
            "http://medicaldecathlon.com",
            "https://www.synapse.org/#!Synapse:syn18779624",
        ),
        bias_items=("8c",),
    ),
    Parameter(
        number=3,
        role=Role.ORGANIZING_INSTITUTIONS,
        group="Challenge organization",
        name="Organizing institutions and contact person",
        level="challenge",
        kind="institutions",
        required_for_submission=True,
        reported_2004_2016_pct=97,
        definition=(
            "The organizing team: the institutions (affiliations) of the organizers and"
            " the person to contact about the challenge. The institutions are also used"
            " to detect conflicts of interest with reviewers."
        ),
        examples=(
            (
                "German Cancer Research Center (DKFZ); King's College London. Contact: "
                "Jane Doe <jane.doe@example.org>"
            ),
        ),
        bias_items=("6",),
    ),
    Parameter(
        number=4,
        group="Challenge organization",
        name="Life cycle type",
        level="challenge",
        kind="choice",
        required_for_submission=True,
        reported_2004_2016_pct=100,
        choices=(
            "one-time event with fixed submission deadline",
            "open call",
            "repeated event with fixed submission deadline",
        ),
        not_applicable_allowed=False,
        definition=(
            "The intended submission cycle of the challenge: a one-time event with a "
            "fixed submission deadline, a repeated (e.g. annual) event with fixed "
            "deadlines, or a challenge open for new submissions, also after the "
            "conference. Say whether and how the challenge will be continued after the "
            "event."
        ),
        examples=(
            "One-time event with fixed submission deadline at MICCAI 2018",
            "Repeated event with fixed submission deadline, held annually",
            "Open call: new submissions accepted on the platform after the workshop",
        ),
        bias_items=("7",),
    ),
    Parameter(
        number=5,
        group="Challenge organization",
        name="Challenge venue or platform",
        level="challenge",
        kind="text",
        required_for_submission=False,
        reported_2004_2016_pct=99,
        definition=(
            "The event (e.g. a conference) the challenge is associated with, and the "
            "platform used to run it (e.g. grand-challenge.org, Synapse)."
        ),
        examples=(
            "MICCAI 2018, Granada, Spain",
            "MICCAI 2019, Shenzhen; run on Synapse",
        ),
        bias_items=("8a", "8b"),
    ),
    Parameter(
        number=6,
        role=Role.SCHEDULE,
        group="Challenge organization",
        name="Challenge schedule",
        level="challenge",
        kind="schedule",
        required_for_submission=True,
        reported_2004_2016_pct=81,
        definition=(
            "The timetable of the challenge: release date(s) of the training cases, "
            "registration period, release of validation and test cases, submission "
            "deadline(s), associated workshop day(s) and release of the results."
        ),
        examples=(
            "2027-04-01: release of training data",
            "2027-08-15: docker submission deadline",
            "2027-09-27: results announced at the MICCAI workshop",
        ),
        bias_items=("11",),
    ),
    Parameter(
        number=7,
        group="Challenge organization",
        name="Ethics approval",
        level="challenge",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=32,
        definition=(
            "Whether ethics approval was necessary for the data and, if so, its "
            "details: institutional review board, location, date and number of the "
            "approval, with a URL or a reference to the approval document if available."
        ),
        examples=(
            (
                "Approved by the ethics committee of the data-providing university "
                "hospital (board, date and approval number stated)"
            ),
            (
                "Not required: all images come from a public archive (The Cancer "
                "Imaging Archive) released under the providers' approvals"
            ),
        ),
        bias_items=("12",),
    ),
    Parameter(
        number=8,
        group="Challenge organization",
        name="Data usage agreement",
        level="challenge",
        kind="text",
        required_for_submission=False,
        reported_2004_2016_pct=60,
        definition=(
            "How the challenge data may be used and distributed by the participating "
            "teams and by others, with the explicit license applied (e.g. CC BY, CC "
            "BY-SA, CC BY-NC-SA)."
        ),
        examples=(
            "CC BY-SA 4.0: the data may be shared and adapted with attribution",
            (
                "CC BY-NC-SA: non-commercial research use only; participants sign a "
                "data usage agreement before download"
            ),
        ),
        bias_items=("13",),
    ),
    Parameter(
        number=9,
        group="Participation conditions",
        name="Interaction level policy",
        level="challenge",
        kind="choice",
        required_for_submission=True,
        reported_2004_2016_pct=62,
        choices=("fully automatic", "semi-automatic", "interactive"),
        definition=(
            "The user interaction allowed for the algorithms assessed: only fully "
            "automatic methods, or also semi-automatic/interactive methods (and how "
            "much input)."
        ),
        examples=(
            "Only fully automatic methods allowed",
            (
                "Semi-automatic methods allowed; the kind and time of user interaction "
                "must be reported"
            ),
        ),
        bias_items=("9a",),
    ),
    Parameter(
        number=10,
        role=Role.ORGANIZER_PARTICIPATION,
        group="Participation conditions",
        name="Organizer participation policy",
        level="challenge",
        kind="choice",
        required_for_submission=True,
        reported_2004_2016_pct=6,
        choices=(
            "organizers may not participate",
            "organizers may participate but are not ranked",
            "organizers may participate but are not eligible for awards",
            "organizers may participate and are ranked",
        ),
        definition=(
            "The participation policy for members of the organizers' institutes: "
            "whether they may participate and whether they are eligible for awards. Say"
            " also who had access to the test case labels and when."
        ),
        examples=(
            (
                "Members of the organizers' institutes may participate but are not "
                "eligible for awards"
            ),
            "Members of the organizing institutes may not participate",
        ),
        bias_items=("9c", "15"),
    ),
    Parameter(
        number=11,
        role=Role.TRAINING_POLICY,
        group="Participation conditions",
        name="Training data policy",
        level="challenge",
        kind="choice",
        required_for_submission=True,
        reported_2004_2016_pct=16,
        choices=(
            "only the provided training data",
            "provided training data and publicly available data",
            "any data, including private data",
        ),
        definition=(
            "The policy on the data used to train the algorithms: restricted to the "
            "training data provided by the challenge, or supplemented with publicly "
            "available data (including (open) pre-trained nets) or private data."
        ),
        examples=(
            "Only the provided training data may be used",
            (
                "Provided training data plus publicly available data and pre-trained "
                "networks; their use must be declared"
            ),
        ),
        bias_items=("9b",),
    ),
    Parameter(
        number=12,
        role=Role.PRE_EVALUATION,
        group="Participation conditions",
        name="Pre-evaluation method",
        level="challenge",
        kind="text",
        required_for_submission=False,
        reported_2004_2016_pct=5,
        definition=(
            "How participating teams can evaluate their algorithms before submitting "
            "final results, e.g. a validation set with a leaderboard, or several "
            "submissions of which only the last counts."
        ),
        examples=(
            (
                "Development phase: scores on the hidden test sets shown on a "
                "leaderboard updated daily"
            ),
            (
                "No validation cases are provided; participants split the training data"
                " themselves"
            ),
            "Up to three submissions; only the last one counts",
        ),
        bias_items=("10b",),
    ),
    Parameter(
        number=13,
        group="Participation conditions",
        name="Evaluation software",
        level="challenge",
        kind="text",
        required_for_submission=False,
        reported_2004_2016_pct=26,
        definition=(
            "The software the organizers use to compute metrics and rankings, and how "
            "it can be accessed (preferably a link to the code and the supported "
            "platforms)."
        ),
        examples=(
            "Rankings computed with the open-source R toolkit challengeR",
            "Evaluation code published on GitHub before the submission deadline",
        ),
        bias_items=("14a",),
    ),
    Parameter(
        number=14,
        group="Participation conditions",
        name="Submission format",
        level="challenge",
        kind="multichoice",
        required_for_submission=True,
        reported_2004_2016_pct=91,
        choices=(
            "docker container",
            "results files",
            "algorithm code",
            "online platform upload",
        ),
        definition=(
            "What the participating teams submit: a docker container with the "
            "algorithm, result files, the algorithm code, or an upload to an online "
            "platform."
        ),
        examples=(
            "Docker container on the Synapse platform",
            "Segmentation masks as NIfTI files uploaded to the challenge website",
        ),
        bias_items=("10a",),
    ),
    Parameter(
        number=15,
        role=Role.SUBMISSION_INSTRUCTIONS,
        group="Participation conditions",
        name="Submission instructions",
        level="challenge",
        kind="text",
        required_for_submission=False,
        reported_2004_2016_pct=91,
        definition=(
            "How results are submitted, with a link to the submission instructions, "
            "including limits on the number of submissions and any required method "
            "description."
        ),
        examples=(
            (
                "Submission instructions on the challenge website; one submission per "
                "team in the final phase"
            ),
            (
                "Algorithm output sent to the organizers via e-mail; instructions sent "
                "by e-mail"
            ),
            "Method write-up (template provided) required together with the container",
        ),
        bias_items=("10a",),
    ),
    Parameter(
        number=16,
        role=Role.FIELD_OF_APPLICATION,
        group="Mission of the challenge",
        name="Field(s) of application",
        level="task",
        kind="multichoice",
        required_for_submission=True,
        reported_2004_2016_pct=97,
        choices=(
            "diagnosis",
            "screening",
            "prognosis",
            "treatment planning",
            "intervention planning",
            "intervention assistance",
            "intervention follow-up",
            "assistance",
            "surgery",
            "decision support",
            "computer-aided diagnosis",
            "training",
            "research",
            "education",
            "cross-phase",
        ),
        definition=(
            "The main field(s) of application that the participating algorithms target,"
            " e.g. diagnosis, screening, intervention planning, intervention "
            "assistance, prognosis, research or training."
        ),
        examples=(
            "Intervention assistance",
            "Treatment planning, intervention planning, diagnosis, research",
        ),
        bias_items=("17",),
    ),
    Parameter(
        number=17,
        role=Role.TASK_CATEGORY,
        group="Mission of the challenge",
        name="Task category(ies)",
        level="task",
        kind="multichoice",
        required_for_submission=True,
        reported_2004_2016_pct=100,
        choices=(
            "segmentation",
            "classification",
            "detection",
            "localization",
            "registration",
            "tracking",
            "retrieval",
            "reconstruction",
            "prediction",
            "regression",
            "stitching",
            "modeling",
        ),
        not_applicable_allowed=False,
        definition=(
            "The category of the algorithmic problem solved in the task, e.g. "
            "segmentation, classification, detection, localization, registration, "
            "tracking, retrieval, reconstruction, prediction or modeling."
        ),
        examples=(
            "Segmentation",
            "Detection (multiple instance detection)",
        ),
        bias_items=("1", "18"),
    ),
    Parameter(
        number=18,
        group="Mission of the challenge",
        name="Target cohort",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=65,
        definition=(
            "The target cohort: the subjects/objects from whom/which the data would be "
            "acquired in the final biomedical application, e.g. defined by inclusion "
            "criteria such as age or disease. It may differ from the challenge (study) "
            "cohort."
        ),
        examples=(
            "Patients undergoing minimally invasive surgery",
            "Liver cancer patients with visible tumors",
        ),
        bias_items=("19a",),
    ),
    Parameter(
        number=19,
        group="Mission of the challenge",
        name="Algorithm target(s)",
        level="task",
        role=Role.ALGORITHM_TARGETS,
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=99,
        definition=(
            "The structure(s)/subject(s)/object(s)/component(s) that the participating "
            "algorithms are designed to focus on, e.g. a tumor in the brain or the tip "
            "of a medical instrument."
        ),
        examples=(
            (
                "Medical instruments: elongated rigid objects put into the patient and "
                "manipulated directly from outside"
            ),
            "Liver and liver tumor",
            "Prostate peripheral zone and transition zone",
        ),
        bias_items=("22b",),
    ),
    Parameter(
        number=20,
        group="Mission of the challenge",
        name="Data origin",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=98,
        definition=(
            "The region(s)/part(s) of the subject(s)/object(s) from whom/which the "
            "image data would be acquired in the final application, e.g. the brain "
            "shown in CT data or the abdomen shown in laparoscopic video data."
        ),
        examples=(
            "Abdomen shown in laparoscopic video data",
            "Brain shown in multiparametric MRI",
        ),
        bias_items=("22a",),
    ),
    Parameter(
        number=21,
        group="Mission of the challenge",
        name="Assessment aim(s)",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=38,
        definition=(
            "The property(ies) of the algorithms to be optimized to perform well in the"
            " challenge (e.g. accuracy, robustness, runtime, generalizability), "
            "prioritized if there are several. They should be reflected in the metrics "
            "and the priorities in the ranking."
        ),
        examples=(
            "Generalizability to unseen segmentation tasks",
            "Robustness and generalization of instrument segmentation",
            (
                "Liver segmentation in CT in under a minute with an error comparable to"
                " inter-rater variability"
            ),
        ),
        bias_items=("4c", "23"),
    ),
    Parameter(
        number=22,
        group="Study conditions",
        name="Study cohort",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=88,
        definition=(
            "The challenge (study) cohort: the subject(s)/object(s) from whom/which the"
            " challenge data was actually acquired, e.g. ex vivo porcine organs in a "
            "training environment instead of the targeted patients."
        ),
        examples=(
            "Patients undergoing rectal resection or proctocolectomy",
            "Patients with non-small cell lung cancer",
        ),
        bias_items=("19b",),
    ),
    Parameter(
        number=23,
        role=Role.CONTEXT_INFORMATION,
        group="Study conditions",
        name="Context information",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=35,
        definition=(
            "Additional information given along with the images: about the image data "
            "(e.g. tumor volume), the patient in general (e.g. gender, medical history)"
            " or the acquisition process (e.g. device data, calibration data); "
            "differentiate target and challenge cohort if necessary."
        ),
        examples=(
            (
                "Whole surgical video and surgery type for each training case; none for"
                " the test cases"
            ),
            "None",
        ),
        bias_items=("21a", "21b", "21c"),
    ),
    Parameter(
        number=24,
        group="Study conditions",
        name="Center(s)",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=44,
        definition=(
            "The center(s)/institute(s) in which the data was acquired and/or the data "
            "providing platform or source (e.g. a previous challenge); if not given "
            "(e.g. for anonymization), say why."
        ),
        examples=(
            "Heidelberg University Hospital, Department of Surgery",
            "Memorial Sloan Kettering Cancer Center",
            "Several centers via The Cancer Imaging Archive",
        ),
        bias_items=("24c",),
    ),
    Parameter(
        number=25,
        role=Role.IMAGING_MODALITY,
        group="Study conditions",
        name="Imaging modality(ies)",
        level="task",
        kind="multichoice",
        required_for_submission=True,
        reported_2004_2016_pct=99,
        choices=(
            "CT",
            "MRI",
            "ultrasound",
            "X-ray",
            "fluoroscopy",
            "mammography",
            "PET",
            "SPECT",
            "endoscopy",
            "histology",
            "microscopy",
            "OCT",
            "fundus photography",
            "dermoscopy",
            "video",
        ),
        definition="The imaging technique(s) applied in the challenge.",
        examples=(
            "Laparoscopic video",
            "Multiparametric MRI",
            "CT",
        ),
        bias_items=("1", "20"),
    ),
    Parameter(
        number=26,
        group="Study conditions",
        name="Acquisition device(s)",
        level="task",
        kind="text",
        required_for_submission=False,
        reported_2004_2016_pct=25,
        definition=(
            "The device(s) used to acquire the challenge data (e.g. manufacturer and "
            "model), and additional devices used for performance assessment (e.g. a "
            "tracking system in a surgical setting)."
        ),
        examples=(
            (
                "Karl Storz Image 1 laparoscopic camera with 30° optic; Karl Storz "
                "Xenon 300 light source"
            ),
            "1.5T Achieva scanner (Philips Healthcare)",
        ),
        bias_items=("24a",),
    ),
    Parameter(
        number=27,
        group="Study conditions",
        name="Acquisition protocol(s)",
        level="task",
        kind="text",
        required_for_submission=False,
        reported_2004_2016_pct=72,
        definition=(
            "Relevant details of the imaging process/data acquisition for each device, "
            "e.g. the acquisition protocol, sequence parameters and resolution."
        ),
        examples=(
            "3D T1-weighted MPRAGE, 170 sagittal slices, 1.0 mm³ voxels",
            "Video downscaled from 1920 × 1080 to 960 × 540 pixels",
        ),
        bias_items=("24b",),
    ),
    Parameter(
        number=28,
        group="Study conditions",
        name="Operator(s)",
        level="task",
        kind="text",
        required_for_submission=False,
        reported_2004_2016_pct=7,
        definition=(
            "Relevant characteristics (e.g. level of expertise) of the subjects (e.g. a"
            " surgeon) or objects (e.g. a robot) involved in acquiring the data."
        ),
        examples=(
            (
                "Board-certified surgeons with more than five years of laparoscopic "
                "experience"
            ),
            "Trained radiographers during clinical routine",
        ),
        bias_items=("24d",),
    ),
    Parameter(
        number=29,
        group="Challenge data sets",
        name="Distribution of training and test cases",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=18,
        definition=(
            "How the cases are split into training, validation and test sets, and why "
            "this total number and proportion were chosen."
        ),
        examples=(
            "70 % training data and 30 % test data",
            (
                "All procedures of one surgery type reserved for testing "
                "generalization; 80 %/20 % split of the remaining procedures"
            ),
        ),
        bias_items=("25b", "25c"),
    ),
    Parameter(
        number=30,
        group="Challenge data sets",
        name="Category of training data generation method",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=89,
        definition=(
            "How the reference annotation (desired algorithm output) of the training "
            "cases was generated: e.g. manual image annotation, semi-automatic "
            "annotation with manual correction, in silico ground truth, or automatic "
            "methods."
        ),
        examples=(
            "Manual annotation by expert radiologists",
            (
                "Initial segmentation by a company, refined by engineers, checked by a "
                "medical expert"
            ),
        ),
        bias_items=("26a",),
    ),
    Parameter(
        number=31,
        group="Challenge data sets",
        name="Number of training cases",
        level="task",
        kind="count",
        required_for_submission=True,
        reported_2004_2016_pct=89,
        definition=(
            "The number of training (and validation, if any) cases, with how they are "
            "composed (e.g. patients, images per patient, subgroups)."
        ),
        examples=(
            "5,983 cases (2,943 proctocolectomy, 3,040 rectal resection)",
            "484 4D MRI volumes",
        ),
        bias_items=("25b",),
    ),
    Parameter(
        number=32,
        group="Challenge data sets",
        name="Characteristics of training cases",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=79,
        definition=(
            "What one training case is (all data processed to produce one result that "
            "is compared with one reference) and further important characteristics, "
            "e.g. the class distribution, with a justification."
        ),
        examples=(
            (
                "A 10-second video snippet of 250 frames with a reference annotation of"
                " the last frame"
            ),
            "A 3D CT volume with full (pixel-level) annotation",
        ),
        bias_items=("25a", "25d"),
    ),
    Parameter(
        number=33,
        group="Challenge data sets",
        name="Annotation policy for training cases",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=34,
        definition=(
            "The instructions given to the annotators of the training cases before "
            "annotating (e.g. a training phase with the software), preferably with a "
            "link to the annotation protocol."
        ),
        examples=(
            "Labeling instructions defining what counts as an instrument (linked PDF)",
            "Specific instructions from each center",
        ),
        bias_items=("26b",),
    ),
    Parameter(
        number=34,
        group="Challenge data sets",
        name="Annotator(s) of training cases",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=81,
        definition=(
            "Who or what annotated the training cases, how many annotators there were, "
            "and their expertise (e.g. years of professional experience, medically "
            "trained or not)."
        ),
        examples=(
            "A team of 15 engineers; quality control by a medical expert",
            "An expert thoracic radiologist",
        ),
        bias_items=("26a", "26c"),
    ),
    Parameter(
        number=35,
        group="Challenge data sets",
        name="Annotation aggregation method(s) for training cases",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=30,
        definition=(
            "The method used to merge multiple annotations of one training case into "
            "the reference, if any (e.g. majority vote, STAPLE, consensus discussion)."
        ),
        examples=(
            "Consensus of two engineers and one medical student in ambiguous cases",
            "Pixel-wise majority vote of three annotators",
        ),
        bias_items=("26d",),
    ),
    Parameter(
        number=36,
        group="Challenge data sets",
        name="Data pre-processing method(s)",
        level="task",
        kind="text",
        required_for_submission=False,
        reported_2004_2016_pct=24,
        definition=(
            "The method(s) used to pre-process the raw data before it is provided to "
            "the participating teams, e.g. anonymization, resampling, intensity "
            "normalization or format conversion."
        ),
        examples=(
            (
                "Images reoriented to the RAS frame with fslreorient2std; MRI robust "
                "min-max scaled"
            ),
            "Frames saved as PNG; the 249 preceding frames zipped",
        ),
        bias_items=("27",),
    ),
    Parameter(
        number=37,
        group="Challenge data sets",
        name="Category of test data generation method",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=87,
        definition=(
            "How the reference annotation of the test cases was generated: e.g. manual "
            "image annotation, semi-automatic annotation with manual correction, in "
            "silico ground truth, or automatic methods."
        ),
        examples=(
            "Manual annotation by expert radiologists, as for the training cases",
            "Same multi-stage annotation as the training cases",
        ),
        bias_items=("26a",),
    ),
    Parameter(
        number=38,
        role=Role.TEST_CASES,
        group="Challenge data sets",
        name="Number of test cases",
        level="task",
        kind="count",
        required_for_submission=True,
        reported_2004_2016_pct=77,
        not_applicable_allowed=False,
        definition=(
            "The number of test cases, split by subgroup or stage where relevant; it "
            "determines how reliably the algorithms can be told apart."
        ),
        examples=(
            "4,057 cases in three stages (663, 514 and 2,880)",
            "266 4D MRI volumes",
        ),
        bias_items=("25b",),
    ),
    Parameter(
        number=39,
        role=Role.TEST_CASE_CHARACTERISTICS,
        group="Challenge data sets",
        name="Characteristics of test cases",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=77,
        definition=(
            "What one test case is (all data processed to produce one result that is "
            "compared with one reference) and further important characteristics, e.g. "
            "the class distribution, with a justification."
        ),
        examples=(
            "Same format as the training cases but without reference annotation",
            "A 3D CT volume from patients not in the training set",
        ),
        bias_items=("25a", "25d"),
    ),
    Parameter(
        number=40,
        group="Challenge data sets",
        name="Annotation policy for test cases",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=34,
        definition=(
            "The instructions given to the annotators of the test cases before "
            "annotating, preferably with a link to the annotation protocol."
        ),
        examples=(
            "Same labeling instructions as for the training cases",
            "Specific instructions from each center",
        ),
        bias_items=("26b",),
    ),
    Parameter(
        number=41,
        group="Challenge data sets",
        name="Annotator(s) of test cases",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=78,
        definition=(
            "Who or what annotated the test cases, how many annotators there were, and "
            "their expertise (e.g. years of professional experience, medically trained "
            "or not)."
        ),
        examples=(
            "A team of 15 engineers; quality control by a medical expert",
            "An expert abdominal radiologist",
        ),
        bias_items=("26a", "26c"),
    ),
    Parameter(
        number=42,
        group="Challenge data sets",
        name="Annotation aggregation method(s) for test cases",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=34,
        definition=(
            "The method used to merge multiple annotations of one test case into the "
            "reference, if any (e.g. majority vote, STAPLE, consensus discussion)."
        ),
        examples=(
            "Consensus of two engineers and one medical student in ambiguous cases",
            "STAPLE over four annotations",
        ),
        bias_items=("26d",),
    ),
    Parameter(
        number=43,
        group="Challenge data sets",
        name="Potential sources of reference errors",
        level="task",
        kind="text",
        required_for_submission=False,
        reported_2004_2016_pct=28,
        definition=(
            "The most relevant possible sources of error in the reference annotation "
            "(and other sources of error), with an estimate of their magnitude where "
            "possible, e.g. from inter- and intra-annotator variability."
        ),
        examples=(
            "Errors mainly due to image quality (inherent ambiguity of the images)",
            "Data from several centers, devices and raters may cause inconsistencies",
        ),
        bias_items=("28a", "28b"),
    ),
    Parameter(
        number=44,
        role=Role.METRICS,
        group="Assessment method",
        name="Metric(s)",
        level="task",
        kind="metrics",
        required_for_submission=True,
        reported_2004_2016_pct=96,
        not_applicable_allowed=False,
        definition=(
            "The metric(s) used to assess the algorithm properties named in the "
            "assessment aims, and which of them enter the ranking. For each metric: "
            "whether higher is better, its worst value and its bounds."
        ),
        examples=(
            "DSC (higher is better, range [0, 1])",
            "NSD with a 4 mm tolerance (higher is better, range [0, 1])",
            "Object-level F1 score (IoU > 0.3, Hungarian matching)",
        ),
        bias_items=("29a",),
    ),
    Parameter(
        number=45,
        group="Assessment method",
        name="Justification of metric(s)",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=23,
        definition=(
            "Why the metric(s) were chosen, preferably with reference to the biomedical"
            " application."
        ),
        examples=(
            (
                "DSC and NSD: popular, rank-stable, well-defined when regions do not "
                "overlap"
            ),
            "F1 score, since no class scores are submitted and AP cannot be computed",
        ),
        bias_items=("29b",),
    ),
    Parameter(
        number=46,
        role=Role.RANKING_METHOD,
        group="Assessment method",
        name="Rank computation method",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=36,
        not_applicable_allowed=False,
        definition=(
            "How a performance rank is computed from the metric values on the test "
            "cases: aggregation over cases and metrics (aggregate-then-rank, "
            "rank-then-aggregate or test-based), handling of ties, how (sub-)task ranks"
            " are combined, and why this scheme was chosen."
        ),
        examples=(
            (
                "Wilcoxon signed-rank significance ranking per region; mean "
                "significance rank over tasks"
            ),
            (
                "Robustness ranking: 5 % percentile of the metric values per algorithm,"
                " then rank"
            ),
        ),
        bias_items=("30a", "30c"),
    ),
    Parameter(
        number=47,
        group="Assessment method",
        name="Interaction level handling",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=44,
        definition=(
            "How results of methods with different levels of user interaction (e.g. "
            "fully automatic vs. semi-automatic) are treated in assessment and ranking,"
            " e.g. separate rankings."
        ),
        examples=(
            "Separate rankings for automatic and semi-automatic methods",
            "Only fully automatic methods are allowed, so all share one ranking",
        ),
        bias_items=("9a", "30a"),
    ),
    Parameter(
        number=48,
        role=Role.MISSING_DATA,
        group="Assessment method",
        name="Missing data handling",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=18,
        definition=(
            "How missing results on test cases (e.g. empty or failed outputs) are "
            "handled when computing metrics and ranks."
        ),
        examples=(
            (
                "Missing cases are set to the worst possible value, namely 0 for all "
                "metrics"
            ),
            "Missing cases are ranked last per case",
        ),
        bias_items=("30b", "31a"),
    ),
    Parameter(
        number=49,
        role=Role.UNCERTAINTY,
        group="Assessment method",
        name="Uncertainty handling",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=7,
        definition=(
            "How uncertainty is handled: in the reference annotations (e.g. inter-rater"
            " variability, tolerances) and in the ranking (e.g. bootstrapping to assess"
            " ranking stability)."
        ),
        examples=(
            "Ranking stability assessed with 1,000 bootstrap samples and Kendall's tau",
            "NSD tolerance chosen from the inter-rater variability",
        ),
        bias_items=("28a", "31a"),
    ),
    Parameter(
        number=50,
        role=Role.STATISTICAL_TESTS,
        group="Assessment method",
        name="Statistical test(s)",
        level="task",
        kind="text",
        required_for_submission=True,
        reported_2004_2016_pct=6,
        definition=(
            "The statistical test(s) used in the analysis (e.g. to compare algorithms "
            "or to build a test-based ranking), with significance level, multiplicity "
            "adjustment and justification."
        ),
        examples=(
            (
                "Pairwise Wilcoxon signed-rank tests, α = 0.05, not adjusted for "
                "multiplicity"
            ),
        ),
        bias_items=("31a", "31b", "35b"),
    ),
    Parameter(
        number=51,
        group="Challenge outcome",
        name="Information on participants",
        level="task",
        kind="text",
        required_for_submission=False,
        reported_2004_2016_pct=88,
        definition=(
            "Information on the participating teams: numbers of registrations and of "
            "valid submissions, team identifiers, method descriptions and, if "
            "available, their code."
        ),
        examples=(
            "19 teams submitted to the mystery phase",
            (
                "Twelve teams; ten in binary segmentation, seven in detection and "
                "instance segmentation"
            ),
        ),
        bias_items=("14b", "32a", "32b", "32c", "33a", "33b"),
    ),
    Parameter(
        number=52,
        group="Challenge outcome",
        name="Results",
        level="task",
        kind="text",
        required_for_submission=False,
        reported_2004_2016_pct=87,
        definition=(
            "The challenge results: metric values (raw and/or aggregated, with "
            "variability) for every team, the ranking(s) with the number of "
            "submissions, and the results of statistical and further analyses."
        ),
        examples=(
            "Ranking table with median DSC and IQR per team; bootstrap blob plots",
            "Accuracy and robustness rankings per stage, with significance maps",
        ),
        bias_items=("34", "35a", "35b", "36"),
    ),
    Parameter(
        number=53,
        group="Challenge outcome",
        name="Report document",
        level="task",
        kind="text",
        required_for_submission=False,
        reported_2004_2016_pct=74,
        definition=(
            "The document(s) in which the challenge and its results are reported, e.g. "
            "a journal paper or the website, ideally following the BIAS reporting "
            "guideline."
        ),
        examples=(
            (
                "Antonelli, Reinke et al., The Medical Segmentation Decathlon, Nat "
                "Commun 2022"
            ),
            (
                "Roß, Reinke et al., Comparative validation of multi-instance "
                "instrument segmentation in endoscopy, 2020"
            ),
        ),
        bias_items=("2", "37"),
    ),
)

BY_NUMBER: dict[int, Parameter] = {p.number: p for p in PARAMETERS}
BY_ROLE: dict[Role, Parameter] = {p.role: p for p in PARAMETERS if p.role}
GROUPS: tuple[str, ...] = tuple(dict.fromkeys(p.group for p in PARAMETERS))
# Parameters reported after the challenge has run (participants, results,
# report): unanswered at registration by nature, never "missing" in public.
OUTCOME_GROUP = "Challenge outcome"
OUTCOME_PARAMETERS: tuple[Parameter, ...] = tuple(
    p for p in PARAMETERS if p.group == OUTCOME_GROUP
)


def get_parameter(number: int) -> Parameter:
    """The parameter with this Table 4.5 number; KeyError names the valid range."""
    try:
        return BY_NUMBER[number]
    except KeyError:
        raise KeyError(
            f"No parameter {number}; parameters are numbered 1–53."
        ) from None


def parameters_at(level: Level) -> tuple[Parameter, ...]:
    return tuple(p for p in PARAMETERS if p.level == level)


def parameters_in(group: str) -> tuple[Parameter, ...]:
    return tuple(p for p in PARAMETERS if p.group == group)
