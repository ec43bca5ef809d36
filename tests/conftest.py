import pytest
from rest_framework.test import APIClient

from tests.factories import CallFactory, UserFactory


@pytest.fixture
def organizer(db):
    return UserFactory(username="olga")


@pytest.fixture
def call(db):
    return CallFactory(slug="miccai-2027", title="MICCAI 2027")


@pytest.fixture
def api():
    return APIClient()


@pytest.fixture
def organizer_api(api, organizer):
    api.force_authenticate(organizer)
    return api


@pytest.fixture
def chair(call):
    """A chair of the `call` fixture's call."""
    user = UserFactory(username="chair")
    call.chairs.add(user)
    return user


@pytest.fixture(autouse=True)
def _fresh_cache():
    """No cached page (registry.page_cache) or counter leaks between tests."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()
