import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startAnthropicMock } from "../mocks/anthropic-messages.js";
import { startChatCompletionsMock } from "../mocks/chat-completions.js";
import type { Mock, MockOptions } from "../mocks/common.js";
import { startGeminiMock } from "../mocks/gemini.js";
import { startResponsesMock } from "../mocks/responses.js";
import { agentCacheDir, PINNED, type PinnedCli } from "./install.js";

/** The API key every agent sends to its mock (never a real one). */
export const MOCK_KEY_VAR = "EB_MOCK_API_KEY";
const MOCK_KEY = "mock-key-not-a-secret";

export interface PrepareInput {
  /** The agent's temporary HOME (already created). */
  home: string;
  /** The project root eb runs in. */
  project: string;
  /** Mock base URL, http://127.0.0.1:PORT without a path. */
  mockUrl: string;
}

/** A script that stands in for a CLI that cannot be installed here. */
export interface FakeCli {
  agent: string;
  /** The real CLI's package and version it follows. */
  pkg: string;
  version: string;
  bin: string;
  script: string;
}

/** How one real CLI is pointed at its mock, and what the run must show. */
export interface AgentSetup {
  cli: PinnedCli | FakeCli;
  startMock: (options: MockOptions) => Promise<Mock>;
  /** `[harness]` model and reasoning effort written to the project config. */
  model: string;
  reasoningEffort: string | null;
  /** details.reasoning_effort expected in the report (a template default shows up here). */
  expectedEffort: string | null;
  /** The model name the mock must see in the judge's requests. */
  requestModel: string;
  /** Writes the CLI's own config into HOME; returns the `[harness.env]` table. */
  prepare: (input: PrepareInput) => Record<string, string>;
  /**
   * Extra `[agents.<name>]` TOML. Empty for every agent: the contract runs the built-in
   * templates unmodified. Use it only to try out a template fix before it lands in src/.
   */
  override: (input: PrepareInput) => string;
}

function pinned(agent: string): PinnedCli {
  const cli = PINNED.find((p) => p.agent === agent);
  if (!cli) throw new Error(`no pinned CLI ${agent}`);
  return cli;
}

function write(file: string, content: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

const common = (home: string) => ({ HOME: home, [MOCK_KEY_VAR]: MOCK_KEY });

export const AGENTS: Readonly<Record<string, AgentSetup>> = {
  codex: {
    cli: pinned("codex"),
    startMock: startResponsesMock,
    model: "mock-model",
    reasoningEffort: null,
    expectedEffort: "high",
    requestModel: "mock-model",
    // A custom provider: the built-in one would try a WebSocket first.
    prepare: ({ home, mockUrl }) => {
      write(
        path.join(home, ".codex", "config.toml"),
        [
          'model_provider = "mock"',
          "",
          "[model_providers.mock]",
          'name = "mock"',
          `base_url = "${mockUrl}/v1"`,
          `env_key = "${MOCK_KEY_VAR}"`,
          'wire_api = "responses"',
          "request_max_retries = 0",
          "stream_max_retries = 0",
          "",
        ].join("\n"),
      );
      return common(home);
    },
    override: () => "",
  },
  claude: {
    cli: pinned("claude"),
    startMock: startAnthropicMock,
    model: "mock-model",
    reasoningEffort: "high",
    expectedEffort: "high",
    requestModel: "mock-model",
    prepare: ({ home, mockUrl }) => ({
      ...common(home),
      ANTHROPIC_BASE_URL: mockUrl,
      ANTHROPIC_API_KEY: MOCK_KEY,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      CLAUDE_CODE_MAX_RETRIES: "0",
    }),
    override: () => "",
  },
  gemini: {
    cli: pinned("gemini"),
    startMock: startGeminiMock,
    model: "mock-model",
    reasoningEffort: null,
    expectedEffort: null,
    requestModel: "mock-model",
    prepare: ({ home, mockUrl }) => {
      // Without selectedType gemini exits 41 "Invalid auth method selected" (gemini-cli#27550).
      write(
        path.join(home, ".gemini", "settings.json"),
        `${JSON.stringify(
          {
            security: { auth: { selectedType: "gemini-api-key" } },
            privacy: { usageStatisticsEnabled: false },
            telemetry: { enabled: false },
          },
          null,
          2,
        )}\n`,
      );
      return { ...common(home), GOOGLE_GEMINI_BASE_URL: mockUrl, GEMINI_API_KEY: MOCK_KEY };
    },
    override: () => "",
  },
  grok: {
    cli: pinned("grok"),
    startMock: startChatCompletionsMock,
    model: "mock",
    reasoningEffort: "high",
    expectedEffort: "high",
    requestModel: "mock-model",
    prepare: ({ home, mockUrl }) => {
      write(
        path.join(home, ".grok", "config.toml"),
        [
          "[model.mock]",
          'model = "mock-model"',
          `base_url = "${mockUrl}/v1"`,
          `env_key = "${MOCK_KEY_VAR}"`,
          'api_backend = "chat_completions"',
          "",
        ].join("\n"),
      );
      return common(home);
    },
    override: () => "",
  },
  // Passes only once src/ has two fixes, found with an [agents.opencode] override (command
  // `sh -c 'p=$1; shift; printf "%s" "$p" | opencode run "$@"'`, prompt_position after_command,
  // provider_env PWD = the project):
  //  1. the agent's environment sets PWD to the project root: opencode takes its workspace from
  //     $PWD, not its cwd, and auto-rejects reading the project as an "external_directory";
  //  2. opencode gets the prompt on stdin: `opencode run` quotes every argument holding a space
  //     and backslash-escapes its quotes before the model sees it.
  opencode: {
    cli: pinned("opencode"),
    startMock: startChatCompletionsMock,
    model: "mock/mock-model",
    // `--variant high` is accepted; with a provider that defines no variants it changes nothing.
    reasoningEffort: "high",
    expectedEffort: "high",
    requestModel: "mock-model",
    prepare: ({ home, mockUrl }) => {
      // opencode `npm install`s its plugin deps into its config folder on first run: keep that
      // folder (and its caches) in the agent cache so later runs reuse it.
      const state = path.join(agentCacheDir(), "opencode-state");
      const config = {
        $schema: "https://opencode.ai/config.json",
        autoupdate: false,
        share: "disabled",
        provider: {
          mock: {
            npm: "@ai-sdk/openai-compatible",
            name: "Mock",
            options: { baseURL: `${mockUrl}/v1`, apiKey: `{env:${MOCK_KEY_VAR}}` },
            models: { "mock-model": { name: "Mock model" } },
          },
        },
        model: "mock/mock-model",
      };
      return {
        ...common(home),
        OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
        XDG_CONFIG_HOME: path.join(state, "config"),
        XDG_CACHE_HOME: path.join(state, "cache"),
        npm_config_cache: path.join(state, "npm-cache"),
      };
    },
    override: () => "",
  },
  openhands: {
    // PyPI openhands 1.16.0 needs Python 3.12, which this machine cannot install: a fake
    // that follows its documented headless behaviour talks to the mock instead.
    cli: {
      agent: "openhands",
      pkg: "openhands (PyPI)",
      version: "1.16.0",
      bin: "openhands",
      script: fileURLToPath(new URL("../fakes/openhands.mjs", import.meta.url)),
    },
    startMock: startChatCompletionsMock,
    model: "openai/mock-model",
    reasoningEffort: null,
    expectedEffort: null,
    requestModel: "mock-model",
    // LLM_MODEL comes from the template (model_env_vars), honoured with --override-with-envs.
    prepare: ({ home, mockUrl }) => ({
      ...common(home),
      LLM_BASE_URL: `${mockUrl}/v1`,
      LLM_API_KEY: MOCK_KEY,
      OPENHANDS_PERSISTENCE_DIR: path.join(home, ".openhands"),
    }),
    override: () => "",
  },
  pi: {
    cli: pinned("pi"),
    startMock: startChatCompletionsMock,
    model: "mock/mock-model",
    reasoningEffort: "low",
    expectedEffort: "low",
    requestModel: "mock-model",
    prepare: ({ home, mockUrl }) => {
      const models = {
        providers: {
          mock: {
            baseUrl: `${mockUrl}/v1`,
            api: "openai-completions",
            apiKey: MOCK_KEY_VAR,
            compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
            models: [{ id: "mock-model" }],
          },
        },
      };
      write(path.join(home, ".pi", "agent", "models.json"), `${JSON.stringify(models, null, 2)}\n`);
      return common(home);
    },
    override: () => "",
  },
};
