"""The stored text read back (`ingest.read_normalised`) gives the frame it gave
when pandas read it from an `io.StringIO` (a copy of the text at 4 bytes a
character) and the value cells were kept in lists: same columns, dtypes,
categories, values and order, and the same problems named by line."""

import io

import numpy as np
import pandas as pd
import pytest

from analysis import ingest

HEADER = "task,case,algorithm,metric,value\n"

MISSING_AND_SPACES = HEADER + (
    "Brain,007,A1,DSC,0.93\n"
    "Brain,007,A2,DSC,\n"
    "Brain,008,A1,DSC,NA\n"
    "Brain,008,A2,DSC, n/a \n"
    "Heart,007,A1,DSC,nan\n"
    "Heart,007,A2,DSC, 1e-1 \n"
    "Heart,008,A1,DSC,-0\n"
    "Heart,008,A2,DSC,1\n"
)
QUOTED = (
    '"task","target","case","algorithm","metric","value","team","meta:site"\n'
    '"Brain","edema","case 1, left","A1","DSC",0.5,"t1","x"\n'
    '"Brain","edema","case ""2""","A1","DSC",,"t1",""\n'
    '"Brain","edema","case 1, left","A2","DSC","0.25","t2","a\nb"\n'
    '"Brain","edema","case ""2""","A2","DSC"," 0.75 ","t2","y"\n'
)
UNICODE = HEADER + "Gehirn,Fall-ä,Älgo,DSC,0.5\nGehirn,Fall-ä,Bß,DSC,\n"


def former_read(content: str) -> pd.DataFrame:
    """How the stored text was read before (through a StringIO)."""
    raw = pd.read_csv(io.StringIO(content), dtype=str, keep_default_na=False)
    return ingest.validated(raw)


@pytest.mark.parametrize(
    "content",
    [MISSING_AND_SPACES, QUOTED, UNICODE],
    ids=["missing values and spaces", "quoted cells", "unicode"],
)
def test_the_frame_read_back_is_the_former_one(content):
    frame = ingest.read_normalised(content).frame
    pd.testing.assert_frame_equal(frame, former_read(content), check_exact=True)
    assert frame.attrs == {"validated": True}


def test_missing_values_quotes_and_order_as_expected():
    frame = ingest.read_normalised(MISSING_AND_SPACES).frame
    assert list(frame.columns) == [
        "line",
        "task",
        "target",
        "case",
        "algorithm",
        "metric",
        "value",
    ]
    assert frame["line"].tolist() == list(range(2, 10))
    assert frame["value"].dtype == np.float64
    np.testing.assert_array_equal(
        frame["value"].to_numpy(),
        [0.93, np.nan, np.nan, np.nan, np.nan, 0.1, 0.0, 1.0],
    )
    assert not np.signbit(frame["value"].to_numpy()[6])  # -0 stored as 0
    assert list(frame["case"].cat.categories) == ["", "007", "008"]
    assert frame["case"].tolist() == ["007", "007", "008", "008"] * 2

    quoted = ingest.read_normalised(QUOTED).frame
    assert quoted["case"].tolist() == ["case 1, left", 'case "2"'] * 2
    assert quoted["meta:site"].tolist() == ["x", "", "a\nb", "y"]
    np.testing.assert_array_equal(quoted["value"], [0.5, np.nan, 0.25, 0.75])


def test_bad_values_are_named_by_line_as_before():
    content = HEADER + (
        'T,1,A,DSC,0.5\nT,1,B,DSC,good\nT,2,A,DSC,\nT,2,B,DSC,"1,5"\n'
        "T,3,A,DSC,inf\nT,3,B,DSC,n/a\n"
    )
    expected = "expected a number such as 0.93, or an empty cell for a missing result"
    with pytest.raises(ingest.UploadError) as refused:
        ingest.read_normalised(content)
    assert refused.value.errors == [
        f"line 3: value 'good' is not a number; {expected}",
        "line 5: value '1,5' has a decimal comma; write 1.5",
        f"line 6: value 'inf' is not finite; {expected}",
    ]
