import { freemem, totalmem } from 'node:os';
import { Router } from 'express';
import type { ProtocolRuntime } from './protocol-runtime.types.ts';

/** The ComfyUI release whose protocol this server reproduces. */
export const COMFYUI_VERSION = '0.3.64';

export const serverFeatures = (maxUploadBytes: number): Record<string, unknown> => ({
  supports_preview_metadata: true,
  max_upload_size: maxUploadBytes,
});

/** /object_info, /system_stats, /features and the empty model listings of a model-free engine. */
export const infoRoutes = (runtime: ProtocolRuntime, maxUploadBytes: number): Router => {
  const router = Router();

  router.get('/object_info', (_req, res) => {
    res.json(runtime.objectInfo());
  });

  router.get('/object_info/:nodeClass', (req, res) => {
    const all = runtime.objectInfo();
    const name = req.params.nodeClass;
    res.json(Object.hasOwn(all, name) ? { [name]: all[name] } : {});
  });

  router.get('/system_stats', (_req, res) => {
    const ramTotal = totalmem();
    const ramFree = freemem();
    res.json({
      system: {
        os: 'posix',
        ram_total: ramTotal,
        ram_free: ramFree,
        comfyui_version: COMFYUI_VERSION,
        required_frontend_version: '',
        installed_templates_version: '',
        required_templates_version: '',
        // No Python or PyTorch here; the fields keep their type and say what actually runs.
        python_version: `builtin-engine on Node.js ${process.versions.node}`,
        pytorch_version: 'none',
        embedded_python: false,
        argv: process.argv.slice(1),
      },
      devices: [
        {
          name: 'cpu',
          type: 'cpu',
          index: null,
          vram_total: ramTotal,
          vram_free: ramFree,
          torch_vram_total: ramTotal,
          torch_vram_free: ramFree,
        },
      ],
    });
  });

  router.get('/features', (_req, res) => {
    res.json(serverFeatures(maxUploadBytes));
  });

  router.get('/embeddings', (_req, res) => {
    res.json([]);
  });

  router.get('/extensions', (_req, res) => {
    res.json([]);
  });

  // The builtin engine loads no models, so there are no model folders to list.
  router.get('/models', (_req, res) => {
    res.json([]);
  });

  router.get('/models/:folder', (_req, res) => {
    res.status(404).end();
  });

  return router;
};
