#!/usr/bin/env python3
"""Upload a media file to the Gemini Files API (resumable upload protocol).

Prints the File resource as JSON on stdout once it is ACTIVE, e.g.
{"name": "files/abc123", "uri": "https://.../files/abc123", "mimeType": "image/png", "state": "ACTIVE", ...}

Environment:
  GEMINI_API_KEY   required; sent as the x-goog-api-key header, never printed
  GEMINI_BASE_URL  default https://generativelanguage.googleapis.com

Exit codes:
  0  uploaded (and ACTIVE)
  2  bad input: missing key, no such file, empty, unsupported type, too large, bad option
  3  the API refused the request: invalid key (401/403 or API_KEY_INVALID), other 4xx
  4  the API was unavailable: 429/5xx/network errors after the retries, a malformed answer,
     or the file still PROCESSING after --wait-seconds
  5  the API could not process the file (state FAILED)

Python standard library only. Also importable: upload(path, ...) returns the File dict and
raises GeminiError(exit_code, message).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"

# Extension -> the MIME type Gemini documents for it.
MIME_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
    ".heic": "image/heic",
    ".heif": "image/heif",
    ".wav": "audio/wav",
    ".mp3": "audio/mp3",
    ".aiff": "audio/aiff",
    ".aif": "audio/aiff",
    ".aac": "audio/aac",
    ".ogg": "audio/ogg",
    ".flac": "audio/flac",
    ".mp4": "video/mp4",
    ".mpeg": "video/mpeg",
    ".mpg": "video/mpg",
    ".mov": "video/mov",
    ".avi": "video/avi",
    ".flv": "video/x-flv",
    ".webm": "video/webm",
    ".wmv": "video/wmv",
    ".3gp": "video/3gpp",
    ".3gpp": "video/3gpp",
    ".pdf": "application/pdf",
    ".txt": "text/plain",
    ".html": "text/html",
    ".csv": "text/csv",
}

# The Files API takes at most 2 GB per file; PDFs at most 50 MB.
MAX_FILE_BYTES = 2 * 1024**3
MAX_PDF_BYTES = 50 * 1024**2

RETRYABLE_STATUS = {408, 429, 500, 502, 503, 504}

EXIT_INPUT = 2
EXIT_REFUSED = 3
EXIT_UNAVAILABLE = 4
EXIT_FAILED = 5


class GeminiError(Exception):
    """A failure with the exit code the command line reports it with."""

    def __init__(self, exit_code: int, message: str):
        super().__init__(message)
        self.exit_code = exit_code


class Response:
    def __init__(self, status: int, headers: dict[str, str], body: bytes):
        self.status = status
        self.headers = headers  # lower-case names
        self.body = body

    def json(self, what: str) -> dict:
        try:
            data = json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise GeminiError(
                EXIT_UNAVAILABLE, f"{what}: the answer is not JSON: {self.body[:200]!r}"
            ) from None
        if not isinstance(data, dict):
            raise GeminiError(EXIT_UNAVAILABLE, f"{what}: the answer is not a JSON object")
        return data


def api_key(env: dict[str, str] | None = None) -> str:
    key = (env if env is not None else os.environ).get("GEMINI_API_KEY", "").strip()
    if not key:
        raise GeminiError(
            EXIT_INPUT,
            "GEMINI_API_KEY is not set: export your Gemini API key "
            "(https://aistudio.google.com/apikey); it is read from the environment only",
        )
    return key


def base_url(env: dict[str, str] | None = None) -> str:
    url = (env if env is not None else os.environ).get("GEMINI_BASE_URL", "").strip()
    url = (url or DEFAULT_BASE_URL).rstrip("/")
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise GeminiError(EXIT_INPUT, f"GEMINI_BASE_URL must be an http(s) URL, got {url!r}")
    return url


def mime_type_of(path: Path, override: str | None = None, allow_any: bool = False) -> str:
    if override:
        if override in MIME_TYPES.values() or allow_any:
            return override
        raise GeminiError(
            EXIT_INPUT,
            f"unsupported MIME type {override!r}; supported: {', '.join(sorted(set(MIME_TYPES.values())))} "
            "(--allow-any-type sends it anyway)",
        )
    mime = MIME_TYPES.get(path.suffix.lower())
    if mime is None:
        raise GeminiError(
            EXIT_INPUT,
            f"unsupported file type {path.suffix or '(no extension)'!r} for {path}; supported: "
            f"{' '.join(sorted(MIME_TYPES))} (or pass --mime-type)",
        )
    return mime


def check_size(path: Path, mime: str, max_bytes: int | None = None) -> int:
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise GeminiError(EXIT_INPUT, f"no such file: {path}") from None
    if not path.is_file():
        raise GeminiError(EXIT_INPUT, f"not a regular file: {path}")
    if size == 0:
        raise GeminiError(EXIT_INPUT, f"{path} is empty")
    limit, why = MAX_FILE_BYTES, "the Files API takes at most 2 GB per file"
    if mime == "application/pdf":
        limit, why = MAX_PDF_BYTES, "Gemini takes PDFs of at most 50 MB"
    if max_bytes is not None and max_bytes < limit:
        limit, why = max_bytes, f"--max-mb allows at most {max_bytes / 1024**2:g} MB"
    if size > limit:
        raise GeminiError(EXIT_INPUT, f"{path} is {_size(size)}; {why}")
    return size


def _size(n: int) -> str:
    for unit, scale in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def send(
    method: str,
    url: str,
    *,
    headers: dict[str, str],
    body: bytes | None = None,
    timeout: float = 120.0,
) -> Response:
    """One HTTP request; any HTTP status is returned, transport failures raise OSError."""
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return Response(answer.status, _lower(answer.headers), answer.read())
    except urllib.error.HTTPError as error:
        return Response(error.code, _lower(error.headers), error.read())


def _lower(headers) -> dict[str, str]:
    return {name.lower(): value for name, value in headers.items()}


TRANSPORT_ERRORS = (
    urllib.error.URLError,
    http.client.HTTPException,
    ConnectionError,
    socket.timeout,
    TimeoutError,
)


def request_with_retries(
    method: str,
    url: str,
    *,
    what: str,
    headers: dict[str, str],
    body: bytes | None = None,
    timeout: float = 120.0,
    max_retries: int = 4,
    backoff: float = 1.0,
) -> Response:
    """Sends, retrying 408/429/5xx and transport errors with exponential backoff
    (Retry-After honoured); returns a 2xx response or raises GeminiError."""
    for attempt in range(max_retries + 1):
        problem = None
        retry_after = None
        try:
            response = send(method, url, headers=headers, body=body, timeout=timeout)
        except TRANSPORT_ERRORS as error:
            problem = f"{what}: {type(error).__name__}: {error}"
        else:
            if 200 <= response.status < 300:
                return response
            if response.status not in RETRYABLE_STATUS:
                raise refusal(what, response)
            problem = f"{what}: HTTP {response.status}{_api_message(response)}"
            retry_after = response.headers.get("retry-after")
        if attempt == max_retries:
            raise GeminiError(
                EXIT_UNAVAILABLE, f"{problem} (gave up after {max_retries + 1} attempts)"
            )
        delay = backoff_delay(attempt, backoff, retry_after)
        print(f"{problem}; retrying in {delay:.1f} s", file=sys.stderr)
        time.sleep(delay)
    raise AssertionError("unreachable")


def backoff_delay(attempt: int, base: float, retry_after: str | None) -> float:
    if retry_after is not None:
        try:
            return min(max(float(retry_after), 0.0), 60.0)
        except ValueError:
            pass  # an HTTP date: fall back to our own backoff
    return min(base * (2**attempt), 60.0) * (0.5 + random.random() / 2)


def _api_message(response: Response) -> str:
    try:
        error = json.loads(response.body.decode("utf-8")).get("error", {})
        message = error.get("message")
        return f": {message}" if message else ""
    except (UnicodeDecodeError, json.JSONDecodeError, AttributeError):
        return ""


def refusal(what: str, response: Response) -> GeminiError:
    message = _api_message(response)
    text = response.body.decode("utf-8", "replace")
    if response.status in (401, 403) or "API_KEY_INVALID" in text or "API key not valid" in text:
        return GeminiError(
            EXIT_REFUSED,
            f"{what}: the Gemini API rejected the API key (HTTP {response.status}{message}); "
            "check GEMINI_API_KEY",
        )
    return GeminiError(EXIT_REFUSED, f"{what}: HTTP {response.status}{message}")


def same_origin(a: str, b: str) -> bool:
    x, y = urllib.parse.urlsplit(a), urllib.parse.urlsplit(b)
    return (x.scheme, x.netloc) == (y.scheme, y.netloc)


def upload(
    path: str | os.PathLike,
    *,
    mime_type: str | None = None,
    allow_any_type: bool = False,
    display_name: str | None = None,
    max_bytes: int | None = None,
    chunk_bytes: int = 8 * 1024**2,
    wait_seconds: float = 300.0,
    poll_seconds: float = 2.0,
    timeout: float = 120.0,
    max_retries: int = 4,
    backoff: float = 1.0,
    env: dict[str, str] | None = None,
) -> dict:
    """Uploads one file and returns its File resource once ACTIVE."""
    file_path = Path(path)
    mime = mime_type_of(file_path, mime_type, allow_any_type)
    size = check_size(file_path, mime, max_bytes)
    key = api_key(env)
    base = base_url(env)
    retry = {"timeout": timeout, "max_retries": max_retries, "backoff": backoff}

    start = request_with_retries(
        "POST",
        f"{base}/upload/v1beta/files",
        what="starting the upload",
        headers={
            "x-goog-api-key": key,
            "X-Goog-Upload-Protocol": "resumable",
            "X-Goog-Upload-Command": "start",
            "X-Goog-Upload-Header-Content-Length": str(size),
            "X-Goog-Upload-Header-Content-Type": mime,
            "Content-Type": "application/json",
        },
        body=json.dumps({"file": {"display_name": display_name or file_path.name}}).encode(),
        **retry,
    )
    session = start.headers.get("x-goog-upload-url")
    if not session:
        raise GeminiError(EXIT_UNAVAILABLE, "starting the upload: no x-goog-upload-url in the answer")
    # The key goes only to the API's own host, never to a URL on another one.
    key_header = {"x-goog-api-key": key} if same_origin(session, base) else {}

    final = _send_chunks(file_path, size, session, key_header, chunk_bytes, retry)
    file = final.json("finishing the upload").get("file")
    if not isinstance(file, dict) or not file.get("name") or not file.get("uri"):
        raise GeminiError(EXIT_UNAVAILABLE, "finishing the upload: no file name and uri in the answer")
    return wait_until_active(file, base, key, wait_seconds, poll_seconds, retry)


def _send_chunks(
    path: Path, size: int, session: str, key_header: dict, chunk_bytes: int, retry: dict
) -> Response:
    """Sends the bytes in chunks ("upload", the last "upload, finalize"); after a failed chunk it
    asks the session how much arrived ("query") and resumes from there."""
    offset = 0
    failures = 0
    with path.open("rb") as handle:
        while True:
            handle.seek(offset)
            chunk = handle.read(chunk_bytes)
            last = offset + len(chunk) >= size
            command = "upload, finalize" if last else "upload"
            headers = {
                **key_header,
                "Content-Length": str(len(chunk)),
                "X-Goog-Upload-Offset": str(offset),
                "X-Goog-Upload-Command": command,
            }
            problem = None
            retry_after = None
            try:
                response = send("POST", session, headers=headers, body=chunk, timeout=retry["timeout"])
            except TRANSPORT_ERRORS as error:
                problem = f"uploading bytes {offset}-{offset + len(chunk)}: {type(error).__name__}: {error}"
            else:
                if 200 <= response.status < 300:
                    if last:
                        return response
                    offset += len(chunk)
                    continue
                if response.status not in RETRYABLE_STATUS:
                    raise refusal("uploading the file", response)
                problem = f"uploading bytes {offset}-{offset + len(chunk)}: HTTP {response.status}"
                retry_after = response.headers.get("retry-after")
            if failures == retry["max_retries"]:
                raise GeminiError(EXIT_UNAVAILABLE, f"{problem} (gave up after {failures + 1} attempts)")
            delay = backoff_delay(failures, retry["backoff"], retry_after)
            failures += 1
            print(f"{problem}; retrying in {delay:.1f} s", file=sys.stderr)
            time.sleep(delay)
            status = request_with_retries(
                "POST",
                session,
                what="asking how much of the upload arrived",
                headers={**key_header, "X-Goog-Upload-Command": "query"},
                body=b"",
                **retry,
            )
            if status.headers.get("x-goog-upload-status") == "final":
                return status
            try:
                offset = int(status.headers.get("x-goog-upload-size-received", offset))
            except ValueError:
                pass


def wait_until_active(
    file: dict, base: str, key: str, wait_seconds: float, poll_seconds: float, retry: dict
) -> dict:
    """Videos (and some other files) are PROCESSING for a while; poll files.get until ACTIVE."""
    deadline = time.monotonic() + wait_seconds
    while True:
        state = file.get("state", "ACTIVE")
        if state == "ACTIVE":
            return file
        if state == "FAILED":
            why = (file.get("error") or {}).get("message", "no reason given")
            raise GeminiError(EXIT_FAILED, f"Gemini could not process {file['name']}: {why}")
        if time.monotonic() >= deadline:
            raise GeminiError(
                EXIT_UNAVAILABLE,
                f"{file['name']} is still {state} after {wait_seconds:g} s (raise --wait-seconds)",
            )
        time.sleep(poll_seconds)
        file = request_with_retries(
            "GET",
            f"{base}/v1beta/{file['name']}",
            what=f"reading the state of {file['name']}",
            headers={"x-goog-api-key": key},
            **retry,
        ).json("reading the file's state")


def delete(name: str, env: dict[str, str] | None = None, timeout: float = 30.0) -> None:
    """Deletes an uploaded file (files expire after 48 hours anyway). Raises GeminiError."""
    request_with_retries(
        "DELETE",
        f"{base_url(env)}/v1beta/{name}",
        what=f"deleting {name}",
        headers={"x-goog-api-key": api_key(env)},
        timeout=timeout,
        max_retries=2,
    )


def add_common_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mime-type", help="override the type guessed from the extension")
    parser.add_argument(
        "--allow-any-type", action="store_true", help="send a --mime-type not in the supported list"
    )
    parser.add_argument("--max-mb", type=float, help="refuse files larger than this (MB)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per HTTP request (120)")
    parser.add_argument("--max-retries", type=int, default=4, help="retries on 429/5xx/network (4)")
    parser.add_argument(
        "--backoff-seconds", type=float, default=1.0, help="first retry delay, doubled each time (1)"
    )
    parser.add_argument(
        "--wait-seconds", type=float, default=300.0, help="how long a file may stay PROCESSING (300)"
    )
    parser.add_argument("--poll-seconds", type=float, default=2.0, help="PROCESSING poll interval (2)")
    parser.add_argument("--chunk-mib", type=int, default=8, help="upload chunk size in MiB (8)")


def upload_options(args: argparse.Namespace) -> dict:
    if args.chunk_mib < 1:
        raise GeminiError(EXIT_INPUT, "--chunk-mib must be at least 1")
    if args.max_retries < 0:
        raise GeminiError(EXIT_INPUT, "--max-retries must be 0 or more")
    return {
        "mime_type": args.mime_type,
        "allow_any_type": args.allow_any_type,
        "max_bytes": None if args.max_mb is None else int(args.max_mb * 1024**2),
        "chunk_bytes": args.chunk_mib * 1024**2,
        "wait_seconds": args.wait_seconds,
        "poll_seconds": args.poll_seconds,
        "timeout": args.timeout,
        "max_retries": args.max_retries,
        "backoff": args.backoff_seconds,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Upload a file to the Gemini Files API and print its File resource as JSON.",
        epilog="Exit codes: 0 uploaded, 2 bad input, 3 refused (key, 4xx), 4 unavailable "
        "(429/5xx/network after retries), 5 processing failed.",
    )
    parser.add_argument("file", help="the image, audio, video or PDF to upload")
    parser.add_argument("--display-name", help="name shown in the Files API (default: file name)")
    add_common_options(parser)
    args = parser.parse_args(argv)
    try:
        file = upload(args.file, display_name=args.display_name, **upload_options(args))
    except GeminiError as error:
        print(f"upload_media: {error}", file=sys.stderr)
        return error.exit_code
    print(json.dumps(file, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
