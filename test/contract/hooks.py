"""schemathesis hooks: uploads are real files, so valid multipart requests exercise the attachment
path (type detection, reading) instead of being refused as unreadable bytes. They are JPEGs
because schemathesis labels every file part with the first type the contract's encoding lists
(image/jpeg), and the service checks that label against the file's magic bytes."""
from pathlib import Path

import schemathesis
from hypothesis import strategies as st

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

schemathesis.openapi.format(
    "binary",
    st.sampled_from([(FIXTURES / "tiny.jpg").read_bytes(), (FIXTURES / "photo.jpg").read_bytes()]),
)
