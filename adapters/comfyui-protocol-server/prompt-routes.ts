import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import type { Request, Response } from 'express';
import type { HistoryStore } from './history-store.ts';
import { emptyOk, parseJsonBody, queryParams, rawBody } from './http-support.ts';
import type { PromptExecutor } from './prompt-executor.ts';
import type { PromptQueue } from './prompt-queue.ts';
import type { ComfyGraph, ProtocolRuntime } from './protocol-runtime.types.ts';
import { isPlainObject, pyFloat, pyIn, pyInt, pyIter, pyStr, pyTruthy } from './py-values.ts';

export interface PromptRouteDeps {
  runtime: ProtocolRuntime;
  queue: PromptQueue;
  history: HistoryStore;
  executor: PromptExecutor;
  /** ComfyUI's `self.number`, which every POST /prompt without an explicit number advances. */
  counter: { number: number };
  maxUploadBytes: number;
}

const NO_PROMPT = { type: 'no_prompt', message: 'No prompt provided', details: 'No prompt provided', extra_info: {} };

/** POST /prompt, GET /prompt, /queue, /history and /interrupt, as ComfyUI's server.py answers them. */
export const promptRoutes = (deps: PromptRouteDeps): Router => {
  const router = Router();
  const body = rawBody(deps.maxUploadBytes);

  router.post('/prompt', body, (req, res) => submitPrompt(deps, req, res));

  router.get('/prompt', (_req, res) => {
    res.json({ exec_info: { queue_remaining: deps.queue.remaining() } });
  });

  router.get('/queue', (_req, res) => {
    const { running, pending } = deps.queue.snapshot();
    res.json({ queue_running: running, queue_pending: pending });
  });

  router.post('/queue', body, (req, res) => {
    const json = parseJsonBody(req);
    if (pyIn('clear', json) && pyTruthy((json as Record<string, unknown>)['clear'])) deps.queue.wipe();
    if (pyIn('delete', json)) {
      for (const id of pyIter((json as Record<string, unknown>)['delete'])) {
        if (typeof id === 'string') deps.queue.delete(id);
      }
    }
    emptyOk(res);
  });

  router.get('/history', (req, res) => {
    const query = queryParams(req);
    const maxItems = query.get('max_items');
    const offset = query.get('offset');
    res.json(deps.history.list(maxItems === null ? null : pyInt(maxItems), offset === null ? -1 : pyInt(offset)));
  });

  router.get('/history/:promptId', (req, res) => {
    res.json(deps.history.get(req.params.promptId));
  });

  router.post('/history', body, (req, res) => {
    const json = parseJsonBody(req);
    if (pyIn('clear', json) && pyTruthy((json as Record<string, unknown>)['clear'])) deps.history.clear();
    if (pyIn('delete', json)) {
      for (const id of pyIter((json as Record<string, unknown>)['delete'])) {
        if (typeof id === 'string') deps.history.delete(id);
      }
    }
    emptyOk(res);
  });

  router.post('/interrupt', body, (req, res) => {
    let json: unknown;
    try {
      json = parseJsonBody(req);
    } catch {
      json = {};
    }
    if (!isPlainObject(json)) throw new TypeError("'json_data' has no attribute 'get'");
    const promptId = json['prompt_id'];
    if (pyTruthy(promptId)) {
      // Only the running prompt can be interrupted by id; anything else is a quiet no-op.
      if (deps.queue.runningItem()?.promptId === promptId) deps.executor.interrupt();
    } else {
      deps.executor.interrupt();
    }
    emptyOk(res);
  });

  // No models to unload; free_memory also drops the execution cache, as in ComfyUI.
  router.post('/free', body, (req, res) => {
    const json = parseJsonBody(req);
    if (pyIn('free_memory', json) && pyTruthy((json as Record<string, unknown>)['free_memory'])) deps.executor.freeMemory();
    emptyOk(res);
  });

  return router;
};

const submitPrompt = (deps: PromptRouteDeps, req: Request, res: Response): void => {
  const json = parseJsonBody(req);
  let number: number;
  if (pyIn('number', json)) {
    number = pyFloat((json as Record<string, unknown>)['number']);
  } else {
    number = deps.counter.number;
    if (pyIn('front', json) && pyTruthy((json as Record<string, unknown>)['front'])) number = -number;
    deps.counter.number += 1;
  }
  if (!isPlainObject(json) || !Object.hasOwn(json, 'prompt')) {
    res.status(400).json({ error: NO_PROMPT, node_errors: {} });
    return;
  }
  const prompt = json['prompt'];
  const promptId = Object.hasOwn(json, 'prompt_id') ? pyStr(json['prompt_id']) : randomUUID();
  const targets = json['partial_execution_targets'];
  const valid = deps.runtime.validate(prompt, targets === null || targets === undefined ? undefined : (targets as string[]));
  const extraData = Object.hasOwn(json, 'extra_data') ? json['extra_data'] : {};
  if (Object.hasOwn(json, 'client_id')) {
    if (!isPlainObject(extraData)) throw new TypeError("'extra_data' does not support item assignment");
    extraData['client_id'] = json['client_id'];
  }
  if (!valid.ok) {
    res.status(400).json({ error: valid.error, node_errors: valid.node_errors });
    return;
  }
  deps.queue.put({
    number,
    promptId,
    prompt: structuredClone(prompt) as ComfyGraph,
    extraData: structuredClone(isPlainObject(extraData) ? extraData : {}),
    outputs: [...valid.outputs],
  });
  res.json({ prompt_id: promptId, number, node_errors: valid.nodeErrors });
};
