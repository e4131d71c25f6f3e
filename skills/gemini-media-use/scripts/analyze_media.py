#!/usr/bin/env python3
"""Ask Gemini a question about one or more media files (generateContent with file_data).

Each FILE is uploaded with upload_media.py (keep both scripts in one folder), the prompt and the
files go to models/<model>:generateContent, and the answer is printed. The uploaded files are
deleted afterwards unless --keep.

Modes:
  (default)  print the answer text
  --json     ask for a JSON answer (responseMimeType application/json), print it
  --verdict  ask for {"pass": true|false, "reason": "..."}; print the reason; exit 0 on pass,
             1 on fail: the exit code a deterministic eval check needs

Environment:
  GEMINI_API_KEY   required
  GEMINI_BASE_URL  default https://generativelanguage.googleapis.com
  GEMINI_MODEL     default gemini-3.5-flash (or --model)

Exit codes:
  0  answered (--verdict: pass)
  1  --verdict: the model said the file fails the criterion
  2  bad input (missing key, no such file, unsupported type, too large, bad option)
  3  the API refused the request (invalid key, 4xx)
  4  the API was unavailable (429/5xx/network after the retries, malformed answer)
  5  no usable answer: blocked, empty, not JSON (--json/--verdict), or the file failed processing

Python standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # leave no __pycache__ next to the scripts
sys.path.insert(0, str(Path(__file__).resolve().parent))

from upload_media import (  # noqa: E402
    EXIT_FAILED,
    GeminiError,
    add_common_options,
    api_key,
    base_url,
    delete,
    request_with_retries,
    upload,
    upload_options,
)

DEFAULT_MODEL = "gemini-3.5-flash"
EXIT_VERDICT_FAIL = 1

VERDICT_SCHEMA = {
    "type": "OBJECT",
    "properties": {"pass": {"type": "BOOLEAN"}, "reason": {"type": "STRING"}},
    "required": ["pass", "reason"],
}
VERDICT_INSTRUCTION = (
    "\n\nAnswer with a JSON object {\"pass\": true or false, \"reason\": \"<one sentence>\"}: "
    "pass is true only if the criterion above is fully met by the attached file(s)."
)


def generate(
    files: list[dict],
    prompt: str,
    *,
    model: str,
    mode: str = "text",
    temperature: float = 0.0,
    timeout: float = 120.0,
    max_retries: int = 4,
    backoff: float = 1.0,
    env: dict[str, str] | None = None,
) -> str:
    """One generateContent call with the files (File resources) before the prompt; returns the
    answer text. Raises GeminiError."""
    parts = [{"file_data": {"mime_type": f["mimeType"], "file_uri": f["uri"]}} for f in files]
    text = prompt + (VERDICT_INSTRUCTION if mode == "verdict" else "")
    config: dict = {"temperature": temperature}
    if mode in ("json", "verdict"):
        config["responseMimeType"] = "application/json"
    if mode == "verdict":
        config["responseSchema"] = VERDICT_SCHEMA
    body = {"contents": [{"role": "user", "parts": [*parts, {"text": text}]}], "generationConfig": config}
    response = request_with_retries(
        "POST",
        f"{base_url(env)}/v1beta/models/{model}:generateContent",
        what=f"asking {model}",
        headers={"x-goog-api-key": api_key(env), "Content-Type": "application/json"},
        body=json.dumps(body).encode(),
        timeout=timeout,
        max_retries=max_retries,
        backoff=backoff,
    ).json(f"asking {model}")
    return answer_text(response)


def answer_text(response: dict) -> str:
    candidates = response.get("candidates") or []
    if not candidates:
        blocked = (response.get("promptFeedback") or {}).get("blockReason")
        why = f"the prompt was blocked ({blocked})" if blocked else "no candidates in the answer"
        raise GeminiError(EXIT_FAILED, why)
    first = candidates[0]
    parts = (first.get("content") or {}).get("parts") or []
    text = "".join(p.get("text", "") for p in parts if isinstance(p, dict) and not p.get("thought"))
    if not text.strip():
        raise GeminiError(
            EXIT_FAILED, f"empty answer (finishReason {first.get('finishReason', 'unknown')})"
        )
    return text


def parse_json(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise GeminiError(EXIT_FAILED, f"the answer is not JSON ({error}): {text[:200]!r}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Upload media files to Gemini and ask a question about them.",
        epilog="Exit codes: 0 answered (--verdict: pass), 1 --verdict fail, 2 bad input, "
        "3 refused (key, 4xx), 4 unavailable after retries, 5 no usable answer.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="image, audio, video or PDF files")
    parser.add_argument("--prompt", required=True, help="the question or criterion")
    parser.add_argument("--model", default=None, help=f"model (GEMINI_MODEL, else {DEFAULT_MODEL})")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--json", action="store_true", help="ask for and print a JSON answer")
    mode.add_argument("--verdict", action="store_true", help='ask for {"pass", "reason"}; exit 0/1')
    parser.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (0)")
    parser.add_argument("--out", help="also write the answer (and file names) to this JSON file")
    parser.add_argument("--keep", action="store_true", help="do not delete the uploaded files")
    add_common_options(parser)
    args = parser.parse_args(argv)
    model = args.model or os.environ.get("GEMINI_MODEL", "").strip() or DEFAULT_MODEL
    mode_name = "verdict" if args.verdict else "json" if args.json else "text"

    uploaded: list[dict] = []
    try:
        options = upload_options(args)
        api_key()  # fail on a missing key before any upload
        for name in args.files:
            uploaded.append(upload(name, **options))
        text = generate(
            uploaded,
            args.prompt,
            model=model,
            mode=mode_name,
            temperature=args.temperature,
            timeout=args.timeout,
            max_retries=args.max_retries,
            backoff=args.backoff_seconds,
        )
        answer = parse_json(text) if mode_name != "text" else text
        if mode_name == "verdict" and not (
            isinstance(answer, dict) and isinstance(answer.get("pass"), bool)
        ):
            raise GeminiError(EXIT_FAILED, f'the verdict has no boolean "pass": {text[:200]!r}')
    except GeminiError as error:
        print(f"analyze_media: {error}", file=sys.stderr)
        return error.exit_code
    finally:
        if not args.keep:
            for file in uploaded:
                try:
                    delete(file["name"], timeout=args.timeout)
                except GeminiError as error:
                    print(f"analyze_media: warning: {error}", file=sys.stderr)

    if args.out:
        record = {"model": model, "files": [f["name"] for f in uploaded], "answer": answer}
        Path(args.out).write_text(json.dumps(record, indent=2) + "\n")
    if mode_name == "text":
        print(text)
        return 0
    if mode_name == "json":
        print(json.dumps(answer, indent=2))
        return 0
    reason = answer.get("reason", "")
    if answer["pass"]:
        print(f"pass: {reason}")
        return 0
    # stderr: eb shows a failed check's last stderr line as its reason.
    print(f"fail: {reason}", file=sys.stderr)
    return EXIT_VERDICT_FAIL


if __name__ == "__main__":
    sys.exit(main())
