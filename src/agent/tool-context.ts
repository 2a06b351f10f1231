import type { SkillSession } from "../skills/service.js";
import type { ApproveFn } from "../tools/approval/types.js";
import type { ToolContext, ToolNotices } from "../tools/context.js";
import { createDelegationService, type DelegationParent } from "./delegation.js";
import type { AgentEvent } from "./events.js";
import type { ToolLoopGuardrails } from "./guardrails.js";
import { createToolCallService } from "./inner-tools.js";
import type { MemoryStore } from "./memory/index.js";
import type { SessionTools } from "./session-tools.js";
import type { TodoList } from "./todo.js";
import type { AgentOptions } from "./types.js";

/** What one agent lends to the tool context of its requests; the functions are read when called. */
export interface ToolContextSource {
  options: AgentOptions;
  taskId: string;
  conversationId: string;
  platform: string;
  notices: ToolNotices;
  memory: MemoryStore | undefined;
  todos: TodoList;
  skills: SkillSession;
  guardrails: ToolLoopGuardrails;
  sessionTools: SessionTools;
  /** The row id now: compression moves it during a request. */
  sessionId(): string;
  sessionIds(): readonly string[];
  /** Tools offered to the model in this session. */
  offeredTools(): string[];
  /** Asks the user, with the approval hooks around it. */
  approve(signal: AbortSignal): ApproveFn | undefined;
  emit(event: AgentEvent): void;
  touch(description: string): void;
  createChild: DelegationParent["create"];
  trackBackground: NonNullable<DelegationParent["trackBackground"]>;
}

/** What tools see of one request. Built once per request: what can change meanwhile is read live. */
export function buildToolContext(src: ToolContextSource, signal: AbortSignal): ToolContext {
  const opts = src.options;
  const toolSearch = src.sessionTools.service(() => ctx);
  const ctx: ToolContext = {
    taskId: src.taskId,
    get sessionId() {
      return src.sessionId();
    },
    conversationId: src.conversationId,
    get conversationSessionIds() {
      return src.sessionIds();
    },
    signal,
    config: opts.config,
    home: opts.home,
    env: opts.environments.get(src.taskId),
    platform: src.platform,
    ...(opts.scope ? { scope: opts.scope } : {}),
    notices: src.notices,
    approvals: opts.approvals,
    approve: src.approve(signal),
    interactive: opts.approve !== undefined,
    memory: src.memory,
    todos: src.todos,
    skills: src.skills,
    ...(opts.clarify ? { clarify: opts.clarify } : {}),
    ...(opts.sessions ? { sessions: opts.sessions } : {}),
    delegate: createDelegationService({
      options: opts,
      get sessionId() {
        return src.sessionId();
      },
      get toolNames() {
        return src.sessionTools.selection();
      },
      taskId: src.taskId,
      signal,
      notices: src.notices,
      emit: (e) => src.emit(e),
      touch: (d) => src.touch(d),
      create: src.createChild,
      trackBackground: src.trackBackground,
    }),
    toolCalls: createToolCallService({
      registry: opts.registry,
      available: () => src.offeredTools(),
      ctx: () => ctx,
      emit: (e) => src.emit(e),
      guard: src.guardrails,
      hooks: opts.hooks,
    }),
    ...(toolSearch ? { toolSearch } : {}),
  };
  return ctx;
}
