import type { Container } from 'inversify';
import { API_PREFIX } from '../../adapters/http/http-app.ts';
import { filesRoutes } from '../../adapters/http/routes/files.routes.ts';
import { uploadsRoutes } from '../../adapters/http/routes/uploads.routes.ts';
import { LocalObjectStorage } from '../../adapters/local-storage/local-object-storage.ts';
import { S3ObjectStorage } from '../../adapters/s3/s3-object-storage.ts';
import { Blake3ContentHasher } from '../../adapters/crypto/blake3-content-hasher.ts';
import { SharpImageInspector } from '../../adapters/sharp/sharp-image-inspector.ts';
import { ProbeStorage } from '../../core/use-cases/diagnostics/probe-storage.use-case.ts';
import { StoreUpload } from '../../core/use-cases/uploads/store-upload.use-case.ts';
import { SweepExpiredUploads } from '../../core/use-cases/uploads/sweep-expired-uploads.use-case.ts';
import type { Config } from '../config.ts';
import { TOKENS } from '../tokens.ts';
import { bindFeature, forApi, type Feature, type FeaturePorts } from './feature.ts';
import { portsOf } from './ports.ts';

/** How often each API process looks for uploads that expired unused. */
export const UPLOAD_SWEEP_INTERVAL_MS = 10 * 60 * 1000;

export type StorageFeature = Feature<{ probe: ProbeStorage; store: StoreUpload }>;

/** The health probe, the signed-file route of local storage, input uploads and the sweep of expired ones. */
export function storageFeature(ports: FeaturePorts, config: Readonly<Config>): StorageFeature {
  const storage = ports.storage();
  const { uploads } = ports.repos();
  const logger = ports.logger();
  const sweep = new SweepExpiredUploads({ uploads, storage, clock: ports.clock() });
  // Shared with the Comfy API v2 assets (ADR 042): a v2 asset is an upload, stored by the same rules.
  const store = new StoreUpload({
    uploads,
    storage,
    inspector: new SharpImageInspector(),
    hasher: new Blake3ContentHasher(),
    ids: ports.ids(),
    clock: ports.clock(),
    maxBytes: config.generation.maxUploadBytes,
    maxImagePixels: config.generation.limits.maxImagePixels,
  });
  return {
    exports: { probe: new ProbeStorage({ storage, ids: ports.ids(), clock: ports.clock() }), store },
    routes: forApi(config, () => [
      // With S3, presigned URLs are served by the store itself: no files route.
      ...(config.storage.driver === 's3' ? [] : [filesRoutesOf(storage as LocalObjectStorage, ports)]),
      uploadsRoutes({ store, maxUploadBytes: config.generation.maxUploadBytes }),
    ]),
    scheduled: [
      {
        name: 'upload-sweeper',
        roles: ['api'],
        everyMs: UPLOAD_SWEEP_INTERVAL_MS,
        run: async () => {
          const report = await sweep.execute();
          if (report.deleted > 0) logger.info('expired uploads deleted', { count: report.deleted });
          if (report.failedKeys.length > 0) logger.warn('expired upload files could not be deleted', { keys: report.failedKeys.slice(0, 20) });
          return report.deleted;
        },
      },
    ],
  };
}

const filesRoutesOf = (local: LocalObjectStorage, ports: FeaturePorts) =>
  filesRoutes({ verify: (query) => local.signer.verify(query, ports.clock().now()), open: (key) => local.open(key) });

/** Object storage (by STORAGE_DRIVER), its health check and lifecycle, and the storage feature. */
export function bindStorage(container: Container, config: Readonly<Config>): void {
  const storageConfig = config.storage;
  const ports = portsOf(container);
  const feature = bindFeature(container, 'storage', (featurePorts) => storageFeature(featurePorts, config));
  container.bind(TOKENS.HealthCheck).toConstantValue({ name: 'storage', check: async () => void (await feature().exports.probe.execute()) });
  container.bind(TOKENS.StoreUpload).toDynamicValue(() => feature().exports.store);

  if (storageConfig.driver === 's3') {
    container
      .bind(TOKENS.ObjectStorage)
      .toDynamicValue(
        () =>
          new S3ObjectStorage({
            bucket: storageConfig.bucket,
            region: storageConfig.region,
            ...(storageConfig.endpoint ? { endpoint: storageConfig.endpoint } : {}),
            ...(storageConfig.publicEndpoint ? { publicEndpoint: storageConfig.publicEndpoint } : {}),
            forcePathStyle: storageConfig.forcePathStyle,
            ...(storageConfig.serverSideEncryption ? { serverSideEncryption: storageConfig.serverSideEncryption } : {}),
            ...(storageConfig.kmsKeyId ? { kmsKeyId: storageConfig.kmsKeyId } : {}),
            ...(storageConfig.credentials ? { credentials: storageConfig.credentials } : {}),
          }),
      )
      .inSingletonScope();
    container.bind(TOKENS.Lifecycle).toConstantValue({
      name: 's3-storage',
      roles: ['api', 'worker'],
      start: async () => undefined,
      stop: async () => (ports.storage() as S3ObjectStorage).close(),
    });
  } else {
    container
      .bind(TOKENS.ObjectStorage)
      .toDynamicValue(
        () =>
          new LocalObjectStorage({
            dir: storageConfig.dir,
            filesUrl: `${config.publicUrl}${API_PREFIX}/files`,
            signingKey: storageConfig.signingKey,
            clock: ports.clock(),
          }),
      )
      .inSingletonScope();
  }
}
