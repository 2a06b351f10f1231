/**
 * What each browser tool does, loaded with the first browser call: the actions on a task's page
 * session and the dispatcher that opens the session, serialises calls and turns failures into
 * results for the model.
 */
import { join } from "node:path";
import type { ToolContext } from "../../context.js";
import type { ToolOutput } from "../../result.js";
import { argBool, argString, toolError, toolResult } from "../util.js";
import { attachedImageResult, imageLabel, type VisionService, visionRoute } from "../vision.js";
import type { BrowserManager, SessionScope } from "./manager.js";
import { BrowserActionError, type BrowserSession, briefError } from "./session.js";
import { truncateSnapshot } from "./snapshot.js";
import { LABELS_NOTE, lookAtPage, summarizeSnapshot } from "./vision.js";

type Action = (
  session: BrowserSession,
  args: Record<string, unknown>,
  ctx: ToolContext,
) => Promise<ToolOutput>;

const DIALOG_NOTE = "A JavaScript dialog opened and blocks the page: answer it with browser_dialog.";

/** `dialog` fields when an action was interrupted by a dialog. */
const dialogFields = (session: BrowserSession, opened: boolean): Record<string, unknown> => {
  const dialog = opened ? session.pendingDialog : undefined;
  return dialog ? { dialog, note: DIALOG_NOTE } : {};
};

function scopeOf(ctx: ToolContext): SessionScope {
  // Downloads go to the work directory when it is on this machine; remote backends' stay in the cache.
  const workDir = ctx.env.backend === "local" ? ctx.env.getCwd() : join(ctx.home, "cache");
  return { taskId: ctx.taskId, config: ctx.config, home: ctx.home, workDir };
}

/** A URL as the model may write it ("example.com/page") made absolute. */
function normalizeUrl(raw: string): string {
  const url = raw.trim();
  return /^[a-z][a-z0-9+.-]*:/i.test(url) ? url : `https://${url}`;
}

function actions(manager: BrowserManager, vision: VisionService | undefined): Record<string, Action> {
  /** The page as the model reads it: snapshot text, cut or condensed when long. */
  const pageResult = async (
    session: BrowserSession,
    full: boolean,
    ctx: ToolContext,
    extra: Record<string, unknown> = {},
  ): Promise<string> => {
    const snap = await session.snapshot(full);
    const { snapshotMaxChars: max, summarizeSnapshots } = manager.settings;
    let text = snap.text;
    const shortened: Record<string, boolean> = {};
    if (text.length > max && summarizeSnapshots && manager.sideModel) {
      const summary = await summarizeSnapshot(text, snap.url, max, manager.sideModel, ctx.signal);
      if (summary) {
        text = `${summary}\n[condensed by a model from a ${snap.text.length}-character snapshot]`;
        shortened.summarized = true;
      }
    }
    if (!shortened.summarized) {
      const cut = truncateSnapshot(text, max);
      text = cut.text;
      if (cut.truncated) shortened.truncated = true;
    }
    return toolResult({
      success: true,
      url: snap.url,
      title: snap.title,
      ...extra,
      snapshot: text,
      element_count: snap.refs,
      ...shortened,
      ...(snap.dialog ? { dialog: snap.dialog, note: DIALOG_NOTE } : {}),
      ...session.takeReports(),
    });
  };

  return {
    async browser_navigate(session, args, ctx) {
      const raw = argString(args, "url");
      if (!raw?.trim()) return toolError("url is required.");
      const url = normalizeUrl(raw);
      if (!/^https?:/i.test(url)) return toolError(`Only http and https pages can be opened (got ${url}).`);
      const verdict = await session.check(url);
      if (!verdict.ok) return toolError(`Refused to open ${url}: ${verdict.reason}.`);
      const r = await session.navigate(url);
      if (r.dialog) return toolResult({ success: true, url: session.url, ...dialogFields(session, true) });
      const reports = session.takeReports();
      const refusedHere = reports.blocked?.find((b) => b.url === session.url);
      if (refusedHere)
        return toolError(`Refused to open ${refusedHere.url}: ${refusedHere.reason}.`, { requested: url });
      return pageResult(session, false, ctx, {
        ...(r.status !== undefined ? { status: r.status } : {}),
        ...reports,
      });
    },

    browser_snapshot: (session, args, ctx) => pageResult(session, argBool(args, "full"), ctx),

    async browser_click(session, args) {
      const ref = argString(args, "ref");
      if (!ref) return toolError("ref is required (e.g. @e5 from the snapshot).");
      const r = await session.click(ref);
      return toolResult({
        success: true,
        clicked: ref,
        element: r.element,
        url: session.url,
        ...dialogFields(session, r.dialog),
        ...session.takeReports(),
      });
    },

    async browser_type(session, args) {
      const ref = argString(args, "ref");
      if (!ref) return toolError("ref is required (e.g. @e3 from the snapshot).");
      const text =
        typeof args.text === "string" ? args.text : args.text === undefined ? undefined : String(args.text);
      if (text === undefined) return toolError("text is required.");
      const r = await session.type(ref, text);
      return toolResult({
        success: true,
        typed: text,
        into: ref,
        element: r.element,
        ...dialogFields(session, r.dialog),
      });
    },

    async browser_press(session, args) {
      const key = argString(args, "key");
      if (!key) return toolError("key is required (e.g. Enter).");
      const r = await session.press(key);
      return toolResult({
        success: true,
        pressed: key,
        url: session.url,
        ...dialogFields(session, r.dialog),
        ...session.takeReports(),
      });
    },

    async browser_scroll(session, args) {
      const direction = args.direction === "up" ? "up" : args.direction === "down" ? "down" : undefined;
      if (!direction) return toolError('direction must be "up" or "down".');
      if (session.pendingDialog) return toolError(DIALOG_NOTE);
      const r = await session.scroll(direction);
      const edge = direction === "up" ? "top" : "bottom";
      return toolResult({
        success: true,
        direction,
        ...r,
        ...(r.moved === 0 ? { note: `Already at the ${edge} of the page.` } : {}),
      });
    },

    async browser_back(session) {
      const r = await session.back();
      if (!r.moved) return toolError("There is no previous page in this browser's history.");
      return toolResult({
        success: true,
        url: session.url,
        ...dialogFields(session, r.dialog),
        ...session.takeReports(),
      });
    },

    async browser_get_images(session) {
      if (session.pendingDialog) return toolError(DIALOG_NOTE);
      const images = await session.images();
      return toolResult({ success: true, images, count: images.length });
    },

    async browser_vision(session, args, ctx) {
      const question = argString(args, "question");
      if (!question?.trim()) return toolError("question is required.");
      if (session.pendingDialog) return toolError(DIALOG_NOTE);
      const annotate = argBool(args, "annotate");
      const r = await lookAtPage(session, question, annotate, {
        home: ctx.home,
        route: visionRoute(ctx.config, vision),
        sideModel: manager.sideModel,
        signal: ctx.signal,
      });
      const labelled = annotate ? { labelled: r.labelled } : {};
      if (r.error) return toolError(r.error, { screenshot_path: r.screenshotPath });
      if (r.image) {
        const title = await session.evaluate("document.title").catch(() => "");
        return attachedImageResult(
          {
            success: true,
            url: session.url,
            title: typeof title === "string" ? title : "",
            screenshot: imageLabel(r.image, "the viewport"),
            screenshot_path: r.screenshotPath,
            ...labelled,
            note: `The screenshot is attached below.${annotate ? ` ${LABELS_NOTE}` : ""} Answer from it: ${question}`,
          },
          r.image,
        );
      }
      return toolResult({
        success: true,
        analysis: r.analysis,
        screenshot_path: r.screenshotPath,
        ...labelled,
      });
    },

    async browser_console(session, args) {
      const expression = argString(args, "expression");
      const value = expression === undefined ? undefined : await session.evaluate(expression);
      const { messages, errors } = session.consoleLog(argBool(args, "clear"));
      return toolResult({
        success: true,
        console_messages: messages,
        js_errors: errors,
        total_messages: messages.length,
        total_errors: errors.length,
        ...(expression === undefined ? {} : { result: value ?? null }),
      });
    },

    async browser_dialog(session, args) {
      const action = args.action === "accept" || args.action === "dismiss" ? args.action : undefined;
      if (!action) return toolError('action must be "accept" or "dismiss".');
      const r = await session.answerDialog(action, argString(args, "prompt_text"));
      return toolResult({
        success: true,
        action,
        answered: r.answered,
        url: session.url,
        ...dialogFields(session, r.dialog),
        ...session.takeReports(),
      });
    },
  };
}

/** Resolves when `promise` does, or rejects as soon as the turn is interrupted. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new BrowserActionError("Interrupted."));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new BrowserActionError("Interrupted."));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Runs one browser tool call; never throws. */
export type BrowserDispatch = (
  name: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
) => Promise<ToolOutput>;

/**
 * The dispatcher of every browser tool on `manager`'s browser. `vision` says whether the main
 * model looks at browser_vision's screenshots itself (as for vision_analyze).
 */
export function createDispatch(manager: BrowserManager, vision?: VisionService): BrowserDispatch {
  const table = actions(manager, vision);
  return (name, args, ctx) => dispatch(manager, table, name, args, ctx);
}

async function dispatch(
  manager: BrowserManager,
  table: Record<string, Action>,
  name: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<ToolOutput> {
  if (name === "browser_close") {
    const open = manager.existing(ctx.taskId) !== undefined;
    await manager.release(ctx.taskId);
    return toolResult({ success: true, closed: open });
  }
  const unavailable = manager.unavailable();
  if (unavailable) return toolError(`The browser is not available: ${unavailable}.`);
  if (name !== "browser_navigate" && !manager.existing(ctx.taskId))
    return toolError("No page is open: call browser_navigate first.");
  let session: BrowserSession;
  try {
    session = await manager.session(scopeOf(ctx));
  } catch (err) {
    return toolError(`Could not start the browser: ${briefError(err)}`);
  }
  manager.touch(ctx.taskId);
  try {
    return await untilAborted(
      session.run(() => table[name]!(session, args, ctx)),
      ctx.signal,
    );
  } catch (err) {
    return toolError(err instanceof BrowserActionError ? err.message : `${name} failed: ${briefError(err)}`);
  } finally {
    manager.touch(ctx.taskId);
  }
}
