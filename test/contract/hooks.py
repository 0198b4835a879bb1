"""schemathesis hooks: uploads are real files, so valid multipart requests exercise the attachment
path (type detection, reading) instead of being refused as unreadable bytes. They are JPEGs
because schemathesis labels every file part with the first type the contract's encoding lists
(image/jpeg), and the service checks that label against the file's magic bytes."""
from itertools import count
from uuid import uuid4
from pathlib import Path

import schemathesis
from hypothesis import strategies as st

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

schemathesis.openapi.format(
    "binary",
    st.sampled_from([(FIXTURES / "tiny.jpg").read_bytes(), (FIXTURES / "photo.jpg").read_bytes()]),
)


# The query operations also answer as Server-Sent Events (Accept: text/event-stream), which
# schemathesis never asks for by itself (it sends Accept: */*): every other valid request to them
# asks for the stream, so that schemathesis checks each event against the event schema too.
# Negative cases are left alone: schemathesis judges an edited case again, and a case missing
# X-API-Key would then be sent with the key.
STREAMING_PATHS = {"/api/v1/dev/query", "/api/v1/dev/query-multipart"}
_calls = count()


@schemathesis.hook
def before_call(ctx, case, kwargs):
    fresh_idempotency_key(case)
    if case.operation.path not in STREAMING_PATHS or (case.meta is not None and case.meta.generation.mode.is_negative):
        return
    if next(_calls) % 2 == 0:
        case.headers = {**(case.headers or {}), "Accept": "text/event-stream"}


# A generated Idempotency-Key repeats across generated requests: a repeat with another body is
# refused (400) and one with the same body replays an answer whose knowledge base may have been
# deleted since, as documented. Valid creating requests get a key of their own, so that each is
# carried out; the integration tests cover replays.
IDEMPOTENT_OPERATIONS = {("POST", "/api/v1/dev/knowledge-bases"), ("POST", "/api/v1/dev/knowledge-bases/{kb_id}/documents")}


def fresh_idempotency_key(case):
    if (case.operation.method.upper(), case.operation.path) not in IDEMPOTENT_OPERATIONS:
        return
    if case.meta is not None and case.meta.generation.mode.is_negative:
        return
    if case.headers and "Idempotency-Key" in case.headers:
        case.headers = {**case.headers, "Idempotency-Key": str(uuid4())}
