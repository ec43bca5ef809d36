import re

import pytest

from registry.bias_checklist import BIAS_BY_ID, BIAS_ITEMS, SECTIONS, get_bias_item
from registry.parameters import PARAMETERS


@pytest.mark.parametrize("parameter", PARAMETERS, ids=lambda p: p.key)
def test_parameter_has_definition_and_example(parameter):
    assert parameter.definition.strip()
    assert parameter.examples
    assert all(example.strip() for example in parameter.examples)


@pytest.mark.parametrize("parameter", PARAMETERS, ids=lambda p: p.key)
def test_parameter_bias_items_exist_in_checklist(parameter):
    assert parameter.bias_items
    unknown = [i for i in parameter.bias_items if i not in BIAS_BY_ID]
    assert unknown == []


def test_bias_item_ids_are_unique():
    ids = [item.id for item in BIAS_ITEMS]
    assert len(ids) == len(set(ids))


def test_bias_items_cover_numbers_one_to_forty_two_in_order():
    numbers = [int(re.match(r"\d+", item.id).group()) for item in BIAS_ITEMS]
    assert sorted(set(numbers)) == list(range(1, 43))
    assert numbers == sorted(numbers)


def test_bias_sub_items_run_from_a_without_gaps():
    letters: dict[str, list[str]] = {}
    for item in BIAS_ITEMS:
        number, letter = re.fullmatch(r"(\d+)([a-z]?)", item.id).groups()
        letters.setdefault(number, []).append(letter)
    for number, found in letters.items():
        if found != [""]:
            expected = [chr(ord("a") + i) for i in range(len(found))]
            assert found == expected, number


def test_bias_checklist_sections_follow_report_order():
    assert SECTIONS == (
        "Title, abstract, keywords",
        "Introduction",
        "Methods",
        "Results",
        "Discussion",
    )
    assert get_bias_item("26d").topic == (
        "Challenge data sets: Annotation characteristics"
    )


def test_unknown_bias_item_names_the_range():
    with pytest.raises(KeyError, match="1–42"):
        get_bias_item("43")


def test_checklist_item_counts_match_appendix():
    # A.8: 42 items; with sub-items a, b, c … there are 79 entries.
    assert len(BIAS_ITEMS) == 79
    assert [i.id for i in BIAS_ITEMS if i.id.startswith("9")] == [
        "9a",
        "9b",
        "9c",
        "9d",
        "9e",
        "9f",
    ]
