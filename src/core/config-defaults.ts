/**
 * config.yaml defaults. Every key here is documented in docs/configuration.md; the validator uses
 * these values' types as the schema, plus the constraints in `config-rules.ts`.
 */

export interface ModelSettings {
  /** Model id sent to the provider. */
  default: string;
  provider: string;
  base_url: string;
  api_key: string;
  /** "" = auto-detect from provider and base URL. */
  api_mode: string;
  /** 0 = look up / let the provider decide. */
  context_length: number;
  /** 0 = provider default (Anthropic requires a value: 8192 is sent). */
  max_tokens: number;
}

export interface HermesConfig {
  model: ModelSettings;
  /** Toolsets enabled when no `-t` flag is given. */
  toolsets: string[];
  agent: {
    max_turns: number;
    disabled_toolsets: string[];
    /** auto | true | false: the "use your tools" block for GPT/Gemini/Grok/GLM models. */
    tool_use_enforcement: string | boolean;
    api_timeout: number;
    api_max_retries: number;
    save_trajectories: boolean;
  };
  terminal: {
    backend: string;
    cwd: string;
    timeout: number;
    env_passthrough: string[];
  };
  tool_output: {
    max_bytes: number;
    max_lines: number;
    max_line_length: number;
  };
  file_read_max_chars: number;
  prompt_caching: {
    cache_ttl: string;
  };
  display: {
    show_reasoning: boolean;
    tool_progress: boolean;
  };
}

export const DEFAULT_CONFIG: HermesConfig = {
  model: {
    default: "",
    provider: "auto",
    base_url: "",
    api_key: "",
    api_mode: "",
    context_length: 0,
    max_tokens: 0,
  },
  toolsets: ["hermes-cli"],
  agent: {
    max_turns: 90,
    disabled_toolsets: [],
    tool_use_enforcement: "auto",
    api_timeout: 600,
    api_max_retries: 3,
    save_trajectories: false,
  },
  terminal: {
    backend: "local",
    cwd: ".",
    timeout: 180,
    env_passthrough: [],
  },
  tool_output: {
    max_bytes: 50_000,
    max_lines: 2_000,
    max_line_length: 2_000,
  },
  file_read_max_chars: 100_000,
  prompt_caching: {
    cache_ttl: "5m",
  },
  display: {
    show_reasoning: false,
    tool_progress: true,
  },
};
