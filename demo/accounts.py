"""Demo call and one account per role (printed by `make demo`)."""

from django.contrib.auth import get_user_model

from accounts.models import Role
from accounts.services import create_account
from registry.models import Call

DEMO_CALL = {"slug": "miccai-2027", "title": "MICCAI 2027", "threshold": 90}

# (username, password, role, institution, expertise)
DEMO_ACCOUNTS = (
    (
        "organizer",
        "demo-organizer-pw",
        Role.ORGANIZER,
        "German Cancer Research Center (DKFZ)",
        "",
    ),
    ("coorganizer", "demo-coorganizer-pw", Role.ORGANIZER, "King's College London", ""),
    (
        "reviewer1",
        "demo-reviewer1-pw",
        Role.REVIEWER,
        "University of Bern",
        "segmentation, MRI, CT",
    ),
    (
        "reviewer2",
        "demo-reviewer2-pw",
        Role.REVIEWER,
        "Inria",
        "detection, endoscopy, video",
    ),
    (
        "clinician",
        "demo-clinician-pw",
        Role.CLINICAL_REVIEWER,
        "University Hospital Heidelberg",
        "surgery, diagnosis",
    ),
    # Enough reviewers that a chair can still assign 3 technical and 1 clinical
    # reviewer when one of each is conflicted or busy (issue 28).
    (
        "reviewer3",
        "demo-reviewer3-pw",
        Role.REVIEWER,
        "Karolinska Institutet",
        "segmentation, ultrasound, CT",
    ),
    (
        "reviewer4",
        "demo-reviewer4-pw",
        Role.REVIEWER,
        "University of Toronto",
        "detection, classification, MRI",
    ),
    (
        "clinician2",
        "demo-clinician2-pw",
        Role.CLINICAL_REVIEWER,
        "Amsterdam University Medical Center",
        "radiology, oncology",
    ),
    ("chair", "demo-chair-pw", Role.CHAIR, "MICCAI Society", ""),
)


# People are shown by name and affiliation; the demo accounts get plausible ones.
DEMO_NAMES = {
    "organizer": ("Lena", "Hoffmann"),
    "coorganizer": ("James", "Whitfield"),
    "reviewer1": ("Marco", "Rossi"),
    "reviewer2": ("Camille", "Dubois"),
    "clinician": ("Anna", "Weber"),
    "reviewer3": ("Sara", "Lindqvist"),
    "reviewer4": ("Daniel", "Okafor"),
    "clinician2": ("Pieter", "de Vries"),
    "chair": ("Kenji", "Tanaka"),
}


def ensure_demo_call() -> Call:
    call, _ = Call.objects.get_or_create(
        slug=DEMO_CALL["slug"],
        defaults={
            "title": DEMO_CALL["title"],
            "completeness_threshold": DEMO_CALL["threshold"],
        },
    )
    return call


def ensure_demo_accounts(call: Call) -> dict[str, object]:
    User = get_user_model()
    users = {}
    for username, password, role, institution, expertise in DEMO_ACCOUNTS:
        user = User.objects.filter(username=username).first()
        if user is None:
            user = create_account(
                username=username,
                password=password,
                role=role,
                email=f"{username}@example.org",
                institution=institution,
                expertise=expertise,
            )
        if not user.get_full_name() and username in DEMO_NAMES:
            user.first_name, user.last_name = DEMO_NAMES[username]
            user.save(update_fields=["first_name", "last_name"])
        if role == Role.CHAIR:
            call.chairs.add(user)
        users[username] = user
    return users
