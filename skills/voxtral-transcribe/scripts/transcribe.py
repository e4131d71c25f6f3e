#!/usr/bin/env python3
"""Transcribe an audio file with Mistral's Voxtral (POST /v1/audio/transcriptions) and,
optionally, assert what was said.

Prints the transcript text on stdout (--json: the whole API answer). With --expect PHRASE
(repeatable) it exits 1 unless every phrase was said: exactly (after normalising case,
punctuation and spaces) or, with --fuzzy RATIO, in a stretch of the transcript at least that
similar (0-1, difflib ratio).

Environment:
  MISTRAL_API_KEY   required; sent as "Authorization: Bearer ...", never printed
  MISTRAL_BASE_URL  default https://api.mistral.ai

Exit codes:
  0  transcribed (and every --expect phrase found)
  1  an --expect phrase was not found (the transcript is still printed / written)
  2  bad input: missing key, no such file, empty, unsupported type, too large, bad option
  3  the API refused the request: invalid key (401/403), other 4xx
  4  the API was unavailable: 429/5xx/network errors after the retries, or a malformed answer
  5  the answer has no transcript

Python standard library only. Importable: transcribe(path, ...) -> dict, and the matchers
normalize(), contains_phrase(), similarity(), phrase_spans().
"""

from __future__ import annotations

import argparse
import difflib
import http.client
import json
import os
import random
import re
import socket
import sys
import time
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

DEFAULT_BASE_URL = "https://api.mistral.ai"
DEFAULT_MODEL = "voxtral-mini-latest"

MIME_TYPES = {
    ".wav": "audio/wav",
    ".mp3": "audio/mpeg",
    ".flac": "audio/flac",
    ".ogg": "audio/ogg",
    ".m4a": "audio/mp4",
    ".webm": "audio/webm",
}

DEFAULT_MAX_MB = 100.0
RETRYABLE_STATUS = {408, 429, 500, 502, 503, 504}
TRANSPORT_ERRORS = (
    urllib.error.URLError,
    http.client.HTTPException,
    ConnectionError,
    socket.timeout,
    TimeoutError,
)

EXIT_NOT_SAID = 1
EXIT_INPUT = 2
EXIT_REFUSED = 3
EXIT_UNAVAILABLE = 4
EXIT_EMPTY = 5


class VoxtralError(Exception):
    def __init__(self, exit_code: int, message: str):
        super().__init__(message)
        self.exit_code = exit_code


# --- matching --------------------------------------------------------------------------------


def normalize(text: str) -> str:
    """Lower case, accents kept, punctuation dropped, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = re.sub(r"[^\w\s']|_", " ", text)
    text = text.replace("'", "")
    return " ".join(text.split())


def contains_phrase(text: str, phrase: str) -> bool:
    """The phrase, normalised, occurs in the text on word boundaries."""
    words, wanted = normalize(text), normalize(phrase)
    return bool(wanted) and f" {wanted} " in f" {words} "


def similarity(text: str, phrase: str) -> float:
    """Best difflib ratio between the phrase and any stretch of the text of about its length."""
    words, wanted = normalize(text).split(), normalize(phrase).split()
    if not wanted:
        return 0.0
    target = " ".join(wanted)
    best = 0.0
    n = len(wanted)
    for size in {max(1, n - 1), n, n + 1}:
        for start in range(max(1, len(words) - size + 1)):
            window = " ".join(words[start : start + size])
            best = max(best, difflib.SequenceMatcher(None, window, target).ratio())
    return best


def phrase_spans(segments: list[dict], phrase: str) -> list[tuple[float, float]]:
    """(start, end) in seconds of each run of consecutive segments whose text contains the
    phrase; needs a transcription made with timestamps."""
    spans = []
    for i in range(len(segments)):
        for j in range(i, len(segments)):
            if not contains_phrase(text_of(segments[i : j + 1]), phrase):
                continue
            # The first run from i that contains it; keep it unless a later start does too.
            if j == i or not contains_phrase(text_of(segments[i + 1 : j + 1]), phrase):
                spans.append((float(segments[i]["start"]), float(segments[j]["end"])))
            break
    return spans


def text_of(segments: list[dict]) -> str:
    return " ".join(s.get("text", "") for s in segments)


# --- the API ---------------------------------------------------------------------------------


def api_key(env: dict[str, str] | None = None) -> str:
    key = (env if env is not None else os.environ).get("MISTRAL_API_KEY", "").strip()
    if not key:
        raise VoxtralError(
            EXIT_INPUT,
            "MISTRAL_API_KEY is not set: export your Mistral API key (https://console.mistral.ai); "
            "it is read from the environment only",
        )
    return key


def base_url(env: dict[str, str] | None = None) -> str:
    url = (env if env is not None else os.environ).get("MISTRAL_BASE_URL", "").strip()
    url = (url or DEFAULT_BASE_URL).rstrip("/")
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise VoxtralError(EXIT_INPUT, f"MISTRAL_BASE_URL must be an http(s) URL, got {url!r}")
    return url


def audio_type(path: Path, override: str | None = None) -> str:
    if override:
        return override
    mime = MIME_TYPES.get(path.suffix.lower())
    if mime is None:
        raise VoxtralError(
            EXIT_INPUT,
            f"unsupported audio type {path.suffix or '(no extension)'!r} for {path}; supported: "
            f"{' '.join(sorted(MIME_TYPES))} "
            "(convert it, e.g. ffmpeg -i in.xyz out.wav, or pass --mime-type)",
        )
    return mime


def read_audio(path: Path, max_bytes: int) -> bytes:
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise VoxtralError(EXIT_INPUT, f"no such file: {path}") from None
    if not path.is_file():
        raise VoxtralError(EXIT_INPUT, f"not a regular file: {path}")
    if size == 0:
        raise VoxtralError(EXIT_INPUT, f"{path} is empty")
    if size > max_bytes:
        raise VoxtralError(
            EXIT_INPUT,
            f"{path} is {size / 1024**2:.1f} MB; --max-mb allows {max_bytes / 1024**2:g} MB "
            "(split the audio, or raise --max-mb if the API accepts it)",
        )
    return path.read_bytes()


def multipart(fields: list[tuple[str, str]], file_field: str, filename: str, mime: str, data: bytes):
    boundary = f"----eval-banana-{uuid.uuid4().hex}"
    out = bytearray()
    for name, value in fields:
        out += f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
        out += value.encode("utf-8") + b"\r\n"
    safe = filename.replace('"', "_").replace("\r", "_").replace("\n", "_")
    out += (
        f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; filename="{safe}"\r\n'
        f"Content-Type: {mime}\r\n\r\n"
    ).encode()
    out += data + f"\r\n--{boundary}--\r\n".encode()
    return bytes(out), f"multipart/form-data; boundary={boundary}"


def transcribe(
    path: str | os.PathLike,
    *,
    model: str = DEFAULT_MODEL,
    language: str | None = None,
    timestamps: str | None = None,
    diarize: bool = False,
    context_bias: list[str] | None = None,
    temperature: float | None = None,
    mime_type: str | None = None,
    max_bytes: int = int(DEFAULT_MAX_MB * 1024**2),
    timeout: float = 300.0,
    max_retries: int = 4,
    backoff: float = 1.0,
    env: dict[str, str] | None = None,
) -> dict:
    """Transcribes one file; returns the API's JSON answer ({"text", "language", "segments",
    "usage", ...}). Raises VoxtralError."""
    audio_path = Path(path)
    mime = audio_type(audio_path, mime_type)
    data = read_audio(audio_path, max_bytes)
    key = api_key(env)
    url = f"{base_url(env)}/v1/audio/transcriptions"
    fields = [("model", model)]
    if language:
        fields.append(("language", language))
    if timestamps:
        fields.append(("timestamp_granularities", timestamps))
    if diarize:
        fields.append(("diarize", "true"))
    for term in context_bias or []:
        fields.append(("context_bias", term))
    if temperature is not None:
        fields.append(("temperature", str(temperature)))
    body, content_type = multipart(fields, "file", audio_path.name, mime, data)
    headers = {"Authorization": f"Bearer {key}", "Content-Type": content_type, "Accept": "application/json"}

    for attempt in range(max_retries + 1):
        retry_after = None
        request = urllib.request.Request(url, data=body, method="POST", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                return parse_answer(answer.read())
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read().decode("utf-8", "replace")
            if status not in RETRYABLE_STATUS:
                raise refusal(status, text) from None
            problem = f"HTTP {status}{api_message(text)}"
            retry_after = error.headers.get("Retry-After")
        except TRANSPORT_ERRORS as error:
            problem = f"{type(error).__name__}: {error}"
        if attempt == max_retries:
            raise VoxtralError(
                EXIT_UNAVAILABLE,
                f"transcribing {audio_path.name}: {problem} "
                f"(gave up after {attempt + 1} attempts)",
            )
        delay = backoff_delay(attempt, backoff, retry_after)
        print(f"transcribing {audio_path.name}: {problem}; retrying in {delay:.1f} s", file=sys.stderr)
        time.sleep(delay)
    raise AssertionError("unreachable")


def backoff_delay(attempt: int, base: float, retry_after: str | None) -> float:
    if retry_after is not None:
        try:
            return min(max(float(retry_after), 0.0), 60.0)
        except ValueError:
            pass
    return min(base * (2**attempt), 60.0) * (0.5 + random.random() / 2)


def api_message(text: str) -> str:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return f": {text[:200]}" if text.strip() else ""
    message = data.get("message") or data.get("detail") if isinstance(data, dict) else None
    if isinstance(message, (list, dict)):
        message = json.dumps(message)[:300]
    return f": {message}" if message else ""


def refusal(status: int, text: str) -> VoxtralError:
    if status in (401, 403):
        return VoxtralError(
            EXIT_REFUSED,
            f"the Mistral API rejected the API key (HTTP {status}{api_message(text)}); "
            "check MISTRAL_API_KEY",
        )
    return VoxtralError(
        EXIT_REFUSED, f"the Mistral API refused the request: HTTP {status}{api_message(text)}"
    )


def parse_answer(raw: bytes) -> dict:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise VoxtralError(EXIT_UNAVAILABLE, f"the answer is not JSON: {raw[:200]!r}") from None
    if not isinstance(data, dict) or not isinstance(data.get("text"), str):
        raise VoxtralError(EXIT_EMPTY, f'the answer has no "text": {raw[:200]!r}')
    return data


# --- command line ----------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Transcribe audio with Mistral Voxtral; optionally check what was said.",
        epilog="Exit codes: 0 ok, 1 an --expect phrase not heard, 2 bad input, 3 refused "
        "(key, 4xx), 4 unavailable after retries, 5 no transcript.",
    )
    parser.add_argument("audio", help="audio file: " + " ".join(sorted(MIME_TYPES)))
    parser.add_argument("--model", default=DEFAULT_MODEL, help=f"model ({DEFAULT_MODEL})")
    parser.add_argument("--language", help="ISO 639-1 code, e.g. en; default: detected")
    parser.add_argument("--timestamps", choices=["segment", "word"], help="ask for timestamps")
    parser.add_argument("--diarize", action="store_true", help="ask for speaker labels")
    parser.add_argument(
        "--context-bias", action="append", metavar="TERM", help="a name or term to spell right (repeatable)"
    )
    parser.add_argument("--temperature", type=float, help="sampling temperature")
    parser.add_argument("--mime-type", help="override the type guessed from the extension")
    parser.add_argument("--expect", action="append", metavar="PHRASE", help="must be said (repeatable)")
    parser.add_argument("--fuzzy", type=float, metavar="RATIO", help="accept a similarity >= RATIO (0-1)")
    parser.add_argument("--json", action="store_true", help="print the whole API answer as JSON")
    parser.add_argument("--out", help="also write the API answer to this JSON file")
    parser.add_argument(
        "--max-mb", type=float, default=DEFAULT_MAX_MB, help=f"refuse larger files ({DEFAULT_MAX_MB:g})"
    )
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per request (300)")
    parser.add_argument("--max-retries", type=int, default=4, help="retries on 429/5xx/network (4)")
    parser.add_argument("--backoff-seconds", type=float, default=1.0, help="first retry delay, doubled (1)")
    args = parser.parse_args(argv)
    if args.fuzzy is not None and not 0 < args.fuzzy <= 1:
        parser.error("--fuzzy must be in (0, 1]")
    if args.max_retries < 0:
        parser.error("--max-retries must be 0 or more")

    try:
        result = transcribe(
            args.audio,
            model=args.model,
            language=args.language,
            timestamps=args.timestamps,
            diarize=args.diarize,
            context_bias=args.context_bias,
            temperature=args.temperature,
            mime_type=args.mime_type,
            max_bytes=int(args.max_mb * 1024**2),
            timeout=args.timeout,
            max_retries=args.max_retries,
            backoff=args.backoff_seconds,
        )
    except VoxtralError as error:
        print(f"transcribe: {error}", file=sys.stderr)
        return error.exit_code

    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else result["text"])
    if not result["text"].strip() and not args.expect:
        print("transcribe: the transcript is empty", file=sys.stderr)
        return EXIT_EMPTY

    missing = []
    for phrase in args.expect or []:
        if contains_phrase(result["text"], phrase):
            continue
        score = similarity(result["text"], phrase)
        if args.fuzzy is not None and score >= args.fuzzy:
            continue
        missing.append(f"{phrase!r} (best similarity {score:.2f})")
    if missing:
        # The last stderr line is what eb shows as a failed check's reason.
        print(f"transcribe: not said: {'; '.join(missing)}", file=sys.stderr)
        return EXIT_NOT_SAID
    return 0


if __name__ == "__main__":
    sys.exit(main())
