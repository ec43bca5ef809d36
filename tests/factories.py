"""factory_boy factories shared by the Django-side tests."""

import factory
from django.contrib.auth import get_user_model

from accounts.models import Profile
from analysis.models import ResultsVersion
from registry.models import Call, Challenge, Task


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.org")
    password = factory.PostGenerationMethodCall("set_password", "pw-for-tests-1")
    profile = factory.RelatedFactory(
        "tests.factories.ProfileFactory", factory_related_name="user"
    )

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):  # noqa: N805 - factory_boy hook
        if create:
            obj.save()


class ProfileFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Profile

    institution = factory.Sequence(lambda n: f"Institute {n}")


class CallFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Call

    slug = factory.Sequence(lambda n: f"call-{n}")
    title = factory.Sequence(lambda n: f"Conference {n}")


class ChallengeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Challenge

    call = factory.SubFactory(CallFactory)
    owner = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"Challenge {n}")


class TaskFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Task

    challenge = factory.SubFactory(ChallengeFactory)
    name = factory.Sequence(lambda n: f"Task {n}")
    position = factory.Sequence(lambda n: n)


class ResultsVersionFactory(factory.django.DjangoModelFactory):
    """Results stored as they are (no upload, no check, no analysis); pass the
    `registration`. By default: version 1 of an empty table (a header only),
    uploaded by the challenge's owner under the registration's latest version."""

    class Meta:
        model = ResultsVersion

    number = 1
    registration_version = factory.LazyAttribute(
        lambda v: v.registration.versions.order_by("number").last()
    )
    content = "task,case,algorithm,metric,value\n"
    sha256 = "0" * 64
    original_name = "results.csv"
    row_count = factory.LazyAttribute(lambda v: v.content.count("\n") - 1)
    uploaded_by = factory.LazyAttribute(lambda v: v.registration.challenge.owner)
