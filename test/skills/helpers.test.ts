import { closeSync, existsSync, ftruncateSync, openSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeProject, runEb, writeFile } from "../helpers/project.js";
import { blocksOf, SKILLS_DIR } from "./support/markdown.js";
import {
  GEMINI_SCRIPTS,
  type GeminiOptions,
  geminiText,
  type MistralOptions,
  type Mock,
  parseMultipart,
  runPython,
  startGemini,
  startMistral,
  VOXTRAL_SCRIPTS,
} from "./support/mock-apis.js";

const KEY = "test-key-0123";
const ANALYZE = path.join(GEMINI_SCRIPTS, "analyze_media.py");
const UPLOAD = path.join(GEMINI_SCRIPTS, "upload_media.py");
const TRANSCRIBE = path.join(VOXTRAL_SCRIPTS, "transcribe.py");

const mocks: Mock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((mock) => mock.close()));
});

async function gemini(options: Partial<GeminiOptions> = {}) {
  const mock = await startGemini({ key: KEY, ...options });
  mocks.push(mock);
  return mock;
}

async function mistral(options: Partial<MistralOptions> = {}) {
  const mock = await startMistral({ key: KEY, ...options });
  mocks.push(mock);
  return mock;
}

const geminiEnv = (mock: Mock, key = KEY) => ({ GEMINI_API_KEY: key, GEMINI_BASE_URL: mock.url });
const mistralEnv = (mock: Mock, key = KEY) => ({
  MISTRAL_API_KEY: key,
  MISTRAL_BASE_URL: mock.url,
});

/** Deterministic bytes, so what the mock received can be compared. */
function bytes(size: number): Buffer {
  const out = Buffer.alloc(size);
  for (let i = 0; i < size; i++) out[i] = (i * 31 + 7) % 251;
  return out;
}

/** A sparse file of `size` bytes: a 2 GB file without writing 2 GB. */
function sparse(root: string, name: string, size: number): string {
  const file = path.join(root, name);
  const fd = openSync(file, "w");
  ftruncateSync(fd, size);
  closeSync(fd);
  return file;
}

const MIB = 1024 * 1024;

describe("gemini-media-use: upload_media.py and analyze_media.py", () => {
  it("uploads in resumable chunks, waits for ACTIVE, asks with file_data, deletes, and exits 0 on a passing verdict", async () => {
    const mock = await gemini({
      processingPolls: 2,
      answer: () => geminiText('{"pass": true, "reason": "ACME is legible on white."}'),
    });
    const root = makeProject();
    const content = bytes(2 * MIB + 12_345);
    const image = writeFile(root, "out/logo.png", content);
    const out = path.join(root, "answer.json");
    const result = await runPython(
      ANALYZE,
      [
        image,
        "--verdict",
        "--prompt",
        "Criterion: shows ACME",
        "--chunk-mib",
        "1",
        "--poll-seconds",
        "0.01",
        "--out",
        out,
      ],
      geminiEnv(mock),
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe("pass: ACME is legible on white.");

    const [start] = mock.of("start");
    expect(start!.headers["x-goog-upload-protocol"]).toBe("resumable");
    expect(start!.headers["x-goog-upload-command"]).toBe("start");
    expect(start!.headers["x-goog-upload-header-content-length"]).toBe(String(content.length));
    expect(start!.headers["x-goog-upload-header-content-type"]).toBe("image/png");
    expect(JSON.parse(start!.body.toString())).toEqual({ file: { display_name: "logo.png" } });

    const chunks = mock.of("chunk");
    expect(chunks.map((c) => c.headers["x-goog-upload-offset"])).toEqual([
      "0",
      String(MIB),
      String(2 * MIB),
    ]);
    expect(chunks.map((c) => c.headers["x-goog-upload-command"])).toEqual([
      "upload",
      "upload",
      "upload, finalize",
    ]);
    expect(mock.uploads.get("files/f1")!.bytes.equals(content)).toBe(true);
    expect(mock.of("get")).toHaveLength(2); // PROCESSING, then ACTIVE

    const [generate] = mock.of("generate");
    expect(generate!.url).toBe("/v1beta/models/gemini-3.5-flash:generateContent");
    const body = JSON.parse(generate!.body.toString());
    const parts = body.contents[0].parts;
    expect(parts[0]).toEqual({
      file_data: { mime_type: "image/png", file_uri: `${mock.url}/v1beta/files/f1` },
    });
    expect(parts[1].text).toContain("Criterion: shows ACME");
    expect(body.generationConfig.responseMimeType).toBe("application/json");
    expect(body.generationConfig.responseSchema.required).toEqual(["pass", "reason"]);

    expect(mock.of("delete").map((d) => d.url)).toEqual(["/v1beta/files/f1"]);
    for (const seen of mock.seen) expect(seen.headers["x-goog-api-key"]).toBe(KEY);
    expect(JSON.parse(readFileSync(out, "utf8"))).toMatchObject({
      files: ["files/f1"],
      answer: { pass: true },
    });
  });

  it("exits 1 with the reason on stderr when the verdict fails", async () => {
    const mock = await gemini({
      answer: () => geminiText('{"pass": false, "reason": "The text reads ACNE."}'),
    });
    const image = writeFile(makeProject(), "logo.jpg", bytes(1000));
    const result = await runPython(
      ANALYZE,
      [image, "--verdict", "--prompt", "shows ACME"],
      geminiEnv(mock),
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr.trim().split("\n").at(-1)).toBe("fail: The text reads ACNE.");
    expect(mock.of("start")[0]!.headers["x-goog-upload-header-content-type"]).toBe("image/jpeg");
  });

  it("prints the answer text, and upload_media.py prints the File resource", async () => {
    const mock = await gemini({ answer: () => geminiText("A yellow banana on a table.") });
    const root = makeProject();
    const audio = writeFile(root, "clip.mp3", bytes(4000));
    const text = await runPython(
      ANALYZE,
      [audio, "--prompt", "Describe it", "--keep"],
      geminiEnv(mock),
    );
    expect(text.code).toBe(0);
    expect(text.stdout).toBe("A yellow banana on a table.\n");
    expect(mock.of("delete")).toHaveLength(0);

    const video = writeFile(root, "scene.mp4", bytes(5000));
    const upload = await runPython(UPLOAD, [video, "--display-name", "scene one"], geminiEnv(mock));
    expect(upload.code).toBe(0);
    const file = JSON.parse(upload.stdout);
    expect(file).toMatchObject({
      name: "files/f2",
      mimeType: "video/mp4",
      state: "ACTIVE",
      displayName: "scene one",
    });
    expect(file.uri).toBe(`${mock.url}/v1beta/files/f2`);
  });

  it("retries a 429 (honouring Retry-After) and a 503, then succeeds", async () => {
    const mock = await gemini({
      faults: [
        { route: "start", status: 429, times: 1, retryAfter: "1" },
        { route: "generate", status: 503, times: 1 },
      ],
    });
    const image = writeFile(makeProject(), "a.webp", bytes(300));
    const result = await runPython(
      ANALYZE,
      [image, "--prompt", "Describe it", "--backoff-seconds", "0.05"],
      geminiEnv(mock),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("A yellow banana.\n");
    expect(mock.of("start")).toHaveLength(2);
    expect(mock.of("generate")).toHaveLength(2);
    expect(result.stderr).toContain(
      "starting the upload: HTTP 429: injected fault; retrying in 1.0 s",
    );
    expect(result.stderr).toMatch(
      /asking gemini-3\.5-flash: HTTP 503: injected fault; retrying in/,
    );
    expect(result.ms).toBeGreaterThanOrEqual(1000);
  });

  it("resumes a chunk that failed from the size the session reports", async () => {
    const mock = await gemini({ faults: [{ route: "chunk", status: 503, times: 1 }] });
    const content = bytes(MIB + 10);
    const file = writeFile(makeProject(), "doc.pdf", content);
    const result = await runPython(
      UPLOAD,
      [file, "--chunk-mib", "1", "--backoff-seconds", "0.01"],
      geminiEnv(mock),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(mock.of("query")).toHaveLength(1);
    expect(mock.uploads.get("files/f1")!.bytes.equals(content)).toBe(true);
    expect(mock.uploads.get("files/f1")!.mime).toBe("application/pdf");
  });

  it("gives up with exit 4 when the API stays overloaded", async () => {
    const mock = await gemini({ faults: [{ route: "start", status: 429, times: 10 }] });
    const image = writeFile(makeProject(), "a.png", bytes(100));
    const result = await runPython(
      UPLOAD,
      [image, "--max-retries", "2", "--backoff-seconds", "0.01"],
      geminiEnv(mock),
    );
    expect(result.code).toBe(4);
    expect(mock.of("start")).toHaveLength(3);
    expect(result.stderr).toContain("(gave up after 3 attempts)");
  });

  it.each([
    ["400 API_KEY_INVALID", undefined],
    [
      "403",
      {
        status: 403,
        json: { error: { code: 403, message: "Permission denied", status: "PERMISSION_DENIED" } },
      },
    ],
    [
      "401",
      {
        status: 401,
        json: { error: { code: 401, message: "Unauthenticated", status: "UNAUTHENTICATED" } },
      },
    ],
  ])("a rejected key (%s) is exit 3 with a clear message and no retry", async (_label, badKey) => {
    const mock = await gemini(badKey ? { badKey } : {});
    const image = writeFile(makeProject(), "a.png", bytes(100));
    const result = await runPython(ANALYZE, [image, "--prompt", "x"], geminiEnv(mock, "wrong-key"));
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /^analyze_media: starting the upload: the Gemini API rejected the API key \(HTTP 40[013]/,
    );
    expect(result.stderr).toContain("check GEMINI_API_KEY");
    expect(result.stderr).not.toContain("wrong-key");
    expect(mock.seen).toHaveLength(1);
  });

  it("refuses bad input with exit 2 before sending anything", async () => {
    const mock = await gemini();
    const root = makeProject();
    const cases: [string[], Record<string, string>, RegExp][] = [
      [
        [writeFile(root, "notes.xyz", "x"), "--prompt", "p"],
        geminiEnv(mock),
        /unsupported file type '\.xyz' .*supported: .*\.png/,
      ],
      [
        [writeFile(root, "a.png", "x"), "--prompt", "p"],
        { GEMINI_BASE_URL: mock.url },
        /GEMINI_API_KEY is not set/,
      ],
      [
        [path.join(root, "missing.png"), "--prompt", "p"],
        geminiEnv(mock),
        /no such file: .*missing\.png/,
      ],
      [[writeFile(root, "empty.png", ""), "--prompt", "p"], geminiEnv(mock), /empty\.png is empty/],
      [
        [sparse(root, "huge.mp4", 2 * 1024 ** 3 + 1), "--prompt", "p"],
        geminiEnv(mock),
        /huge\.mp4 is 2\.0 GB; the Files API takes at most 2 GB per file/,
      ],
      [
        [sparse(root, "big.pdf", 51 * MIB), "--prompt", "p"],
        geminiEnv(mock),
        /big\.pdf is 51\.0 MB; Gemini takes PDFs of at most 50 MB/,
      ],
      [
        [sparse(root, "clip.wav", 3 * MIB), "--prompt", "p", "--max-mb", "2"],
        geminiEnv(mock),
        /clip\.wav is 3\.0 MB; --max-mb allows at most 2 MB/,
      ],
      [
        [writeFile(root, "b.png", "x"), "--prompt", "p", "--mime-type", "image/gif"],
        geminiEnv(mock),
        /unsupported MIME type 'image\/gif'/,
      ],
    ];
    for (const [args, env, message] of cases) {
      const result = await runPython(ANALYZE, args, env);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    expect(mock.seen).toHaveLength(0);
  });

  it("an answer that is not the JSON asked for, or a blocked prompt, is exit 5", async () => {
    const notJson = await gemini({ answer: () => geminiText("Yes, it shows ACME.") });
    const image = writeFile(makeProject(), "a.png", bytes(100));
    const result = await runPython(ANALYZE, [image, "--json", "--prompt", "x"], geminiEnv(notJson));
    expect(result.code).toBe(5);
    expect(result.stderr).toContain("the answer is not JSON");
    expect(notJson.of("delete")).toHaveLength(1); // cleaned up on failure too

    const blocked = await gemini({
      answer: () => ({ status: 200, json: { promptFeedback: { blockReason: "SAFETY" } } }),
    });
    const again = await runPython(ANALYZE, [image, "--prompt", "x"], geminiEnv(blocked));
    expect(again.code).toBe(5);
    expect(again.stderr).toContain("the prompt was blocked (SAFETY)");
  });

  it("leaves no __pycache__ next to the scripts", () => {
    expect(readdirSync(GEMINI_SCRIPTS)).not.toContain("__pycache__");
    expect(readdirSync(VOXTRAL_SCRIPTS)).not.toContain("__pycache__");
  });
});

describe("voxtral-transcribe: transcribe.py", () => {
  it("sends the multipart request, prints the transcript and checks exact and fuzzy phrases", async () => {
    const mock = await mistral();
    const root = makeProject();
    const audio = bytes(20_000);
    const file = writeFile(root, "out/greeting.wav", audio);
    const out = path.join(root, "transcript.json");
    const result = await runPython(
      TRANSCRIBE,
      [
        file,
        "--language",
        "en",
        "--timestamps",
        "segment",
        "--context-bias",
        "Banana_Radio",
        "--expect",
        "welcome to banana radio",
        "--expect",
        "ADA talks about bananas!",
        "--expect",
        "ada walks about bananas",
        "--fuzzy",
        "0.85",
        "--out",
        out,
      ],
      mistralEnv(mock),
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      "Hello and welcome to Banana Radio. Today, Ada talks about bananas.\n",
    );
    expect(JSON.parse(readFileSync(out, "utf8")).segments).toHaveLength(2);

    const [seen] = mock.seen;
    expect(seen!.headers.authorization).toBe(`Bearer ${KEY}`);
    const fields = parseMultipart(seen!.body, String(seen!.headers["content-type"]));
    const value = (name: string) => fields.find((f) => f.name === name)?.value.toString();
    expect(value("model")).toBe("voxtral-mini-latest");
    expect(value("language")).toBe("en");
    expect(value("timestamp_granularities")).toBe("segment");
    expect(value("context_bias")).toBe("Banana_Radio");
    const part = fields.find((f) => f.name === "file")!;
    expect(part.filename).toBe("greeting.wav");
    expect(part.contentType).toBe("audio/wav");
    expect(part.value.equals(audio)).toBe(true);
  });

  it("exits 1 when a phrase was not said, naming it and its best similarity", async () => {
    const mock = await mistral();
    const file = writeFile(makeProject(), "a.mp3", bytes(100));
    const result = await runPython(
      TRANSCRIBE,
      [file, "--expect", "welcome to banana radio", "--expect", "goodbye everyone"],
      mistralEnv(mock),
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(
      /^transcribe: not said: 'goodbye everyone' \(best similarity 0\.\d\d\)$/,
    );
    // Without --fuzzy a near miss is not enough.
    const near = await runPython(
      TRANSCRIBE,
      [file, "--expect", "welcome to banana radios"],
      mistralEnv(mock),
    );
    expect(near.code).toBe(1);
  });

  it("retries a 429 with Retry-After, then succeeds", async () => {
    const mock = await mistral({
      faults: [
        {
          route: "transcribe",
          status: 429,
          times: 1,
          retryAfter: "0",
          json: { message: "Requests rate limit exceeded" },
        },
      ],
    });
    const file = writeFile(makeProject(), "a.ogg", bytes(100));
    const result = await runPython(TRANSCRIBE, [file], mistralEnv(mock));
    expect(result.code, result.stderr).toBe(0);
    expect(mock.seen).toHaveLength(2);
    expect(result.stderr).toContain(
      "transcribing a.ogg: HTTP 429: Requests rate limit exceeded; retrying in 0.0 s",
    );
  });

  it("gives up with exit 4 after the retries", async () => {
    const mock = await mistral({ faults: [{ route: "transcribe", status: 503, times: 10 }] });
    const file = writeFile(makeProject(), "a.flac", bytes(100));
    const result = await runPython(
      TRANSCRIBE,
      [file, "--max-retries", "1", "--backoff-seconds", "0.01"],
      mistralEnv(mock),
    );
    expect(result.code).toBe(4);
    expect(mock.seen).toHaveLength(2);
    expect(result.stderr).toContain("(gave up after 2 attempts)");
  });

  it("a rejected key is exit 3 with a clear message and no retry", async () => {
    const mock = await mistral();
    const file = writeFile(makeProject(), "a.wav", bytes(100));
    const result = await runPython(TRANSCRIBE, [file], mistralEnv(mock, "wrong-key"));
    expect(result.code).toBe(3);
    expect(result.stderr.trim()).toBe(
      "transcribe: the Mistral API rejected the API key (HTTP 401: Unauthorized); check MISTRAL_API_KEY",
    );
    expect(mock.seen).toHaveLength(1);
  });

  it("refuses bad input with exit 2 before sending anything", async () => {
    const mock = await mistral();
    const root = makeProject();
    const cases: [string[], Record<string, string>, RegExp][] = [
      [
        [writeFile(root, "a.aiff", "x")],
        mistralEnv(mock),
        /unsupported audio type '\.aiff' .*supported: \.flac \.m4a \.mp3 \.ogg \.wav \.webm/,
      ],
      [
        [writeFile(root, "a.wav", "x")],
        { MISTRAL_BASE_URL: mock.url },
        /MISTRAL_API_KEY is not set/,
      ],
      [[path.join(root, "gone.wav")], mistralEnv(mock), /no such file/],
      [
        [sparse(root, "long.wav", 101 * MIB)],
        mistralEnv(mock),
        /long\.wav is 101\.0 MB; --max-mb allows 100 MB/,
      ],
      [
        [writeFile(root, "b.wav", "x"), "--fuzzy", "2"],
        mistralEnv(mock),
        /--fuzzy must be in \(0, 1\]/,
      ],
    ];
    for (const [args, env, message] of cases) {
      const result = await runPython(TRANSCRIBE, args, env);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    expect(mock.seen).toHaveLength(0);
  });

  it("phrase_spans finds the seconds a phrase was said in, also across segments", async () => {
    const code = [
      "import json, sys",
      `sys.path.insert(0, ${JSON.stringify(VOXTRAL_SCRIPTS)})`,
      "from transcribe import phrase_spans",
      "segments = [{'text': 'Hello and welcome', 'start': 0.0, 'end': 1.2},",
      "            {'text': 'to the show.', 'start': 1.2, 'end': 2.0},",
      "            {'text': 'Today: bananas.', 'start': 2.0, 'end': 3.5}]",
      "print(json.dumps([phrase_spans(segments, p) for p in ['welcome to the show', 'BANANAS', 'the showroom']]))",
    ].join("\n");
    const result = await runPython("-c", [code], {});
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual([[[0, 2]], [[2, 3.5]], []]);
  });
});

describe("the media checks of the skills run under eb run against the mocks", () => {
  it("gemini verdict, voxtral phrases and voxtral timestamps pass as documented", async () => {
    const checkOf = (skill: string, id: string) => {
      const block = blocksOf(path.join(SKILLS_DIR, skill, "SKILL.md")).find(
        (b) => b.lang === "yaml" && b.text.includes(`id: ${id}\n`),
      );
      if (!block) throw new Error(`no example ${id} in ${skill}`);
      return block.text;
    };
    const gem = await gemini({ answer: () => geminiText('{"pass": true, "reason": "legible"}') });
    const vox = await mistral({
      answer: () => ({
        status: 200,
        json: {
          model: "voxtral-mini-2602",
          text: "This is a paid advertisement. Welcome to Banana Radio, Ada!",
          segments: [
            { text: "This is a paid advertisement.", start: 0.4, end: 2.0 },
            { text: "Welcome to Banana Radio, Ada!", start: 2.0, end: 4.0 },
          ],
        },
      }),
    });
    const read = (dir: string, name: string) => readFileSync(path.join(dir, name), "utf8");
    const root = makeProject({
      "eval_checks/logo.yaml": checkOf("gemini-media-use", "logo_is_legible"),
      "eval_checks/greeting.yaml": checkOf("voxtral-transcribe", "greeting_is_spoken"),
      "eval_checks/disclaimer.yaml": checkOf("voxtral-transcribe", "disclaimer_comes_first"),
      "eval_checks/tools/analyze_media.py": read(GEMINI_SCRIPTS, "analyze_media.py"),
      "eval_checks/tools/upload_media.py": read(GEMINI_SCRIPTS, "upload_media.py"),
      "eval_checks/tools/transcribe.py": read(VOXTRAL_SCRIPTS, "transcribe.py"),
      "out/logo.png": bytes(500),
      "out/greeting.wav": bytes(500),
      "out/ad.mp3": bytes(500),
    });
    const result = await runEb(["run", "--verbose"], {
      cwd: root,
      env: { ...geminiEnv(gem), ...mistralEnv(vox) },
    });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    for (const id of ["logo_is_legible", "greeting_is_spoken", "disclaimer_comes_first"]) {
      expect(result.stdout).toContain(`- ${id}: passed`);
    }
    expect(gem.of("generate")).toHaveLength(1);
    expect(vox.seen).toHaveLength(2);
    // The evidence the examples write lands in the run folder.
    const runs = path.join(root, ".eval-banana/results");
    const [run] = readdirSync(runs);
    const evidence = readdirSync(path.join(runs, run!, "checks"), { recursive: true }).map(String);
    expect(evidence.some((f) => f.endsWith("gemini.json"))).toBe(true);
    expect(evidence.some((f) => f.endsWith("transcript.json"))).toBe(true);
    expect(existsSync(path.join(root, "eval_checks/tools/__pycache__"))).toBe(false);
  });
});
