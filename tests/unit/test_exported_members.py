"""The public surface of ``driftproof`` is exactly what ``__all__`` lists, and every name resolves."""

import driftproof


def test_exported_members() -> None:
    assert driftproof.__all__ == [
        "__version__",
        "DriftproofError",
        "InputError",
        "LaneError",
        "Receipt",
        "ReceiptError",
        "SCHEMA_VERSION",
        "compare",
        "diff",
        "load_receipt",
        "read_receipt",
        "write_receipt",
    ]
    for name in driftproof.__all__:
        assert getattr(driftproof, name) is not None
