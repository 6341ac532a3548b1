import type { Container } from 'inversify';
import { API_PREFIX } from '../../adapters/http/http-app.ts';
import { filesRoutes } from '../../adapters/http/routes/files.routes.ts';
import { uploadsRoutes } from '../../adapters/http/routes/uploads.routes.ts';
import { LocalObjectStorage } from '../../adapters/local-storage/local-object-storage.ts';
import { S3ObjectStorage } from '../../adapters/s3/s3-object-storage.ts';
import { SharpImageInspector } from '../../adapters/sharp/sharp-image-inspector.ts';
import type { ObjectStorage } from '../../core/ports/object-storage.port.ts';
import { ProbeStorage } from '../../core/use-cases/diagnostics/probe-storage.use-case.ts';
import { StoreUpload } from '../../core/use-cases/uploads/store-upload.use-case.ts';
import { SweepExpiredUploads } from '../../core/use-cases/uploads/sweep-expired-uploads.use-case.ts';
import type { Config } from '../config.ts';
import { TOKENS } from '../tokens.ts';
import { portsOf } from './ports.ts';

/** How often each API process looks for uploads that expired unused. */
export const UPLOAD_SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/** Object storage (by STORAGE_DRIVER), its health check and signed-file route, and input uploads. */
export function bindStorage(container: Container, config: Readonly<Config>): void {
  const storageConfig = config.storage;
  const ports = portsOf(container);
  const storage = () => container.get<ObjectStorage>(TOKENS.ObjectStorage);
  container.bind(TOKENS.HealthCheck).toConstantValue({
    name: 'storage',
    check: async () => void (await new ProbeStorage({ storage: storage(), ids: ports.ids(), clock: ports.clock() }).execute()),
  });

  if (storageConfig.driver === 's3') {
    // Presigned URLs are served by the store itself: no files route here.
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
      stop: async () => (storage() as S3ObjectStorage).close(),
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
    const local = () => storage() as LocalObjectStorage;
    container.bind(TOKENS.RouteModule).toDynamicValue(() =>
      filesRoutes({
        verify: (query) => local().signer.verify(query, ports.clock().now()),
        open: (key) => local().open(key),
      }),
    );
  }

  bindUploads(container, config, storage);
}

function bindUploads(container: Container, config: Readonly<Config>, storage: () => ObjectStorage): void {
  const ports = portsOf(container);
  const uploads = () => ports.repos().uploads;

  container.bind(TOKENS.RouteModule).toDynamicValue(() =>
    uploadsRoutes({
      store: new StoreUpload({
        uploads: uploads(),
        storage: storage(),
        inspector: new SharpImageInspector(),
        ids: ports.ids(),
        clock: ports.clock(),
        maxBytes: config.generation.maxUploadBytes,
        maxImagePixels: config.generation.limits.maxImagePixels,
      }),
      maxUploadBytes: config.generation.maxUploadBytes,
    }),
  );

  ports.scheduler().add({
    name: 'upload-sweeper',
    roles: ['api'],
    everyMs: UPLOAD_SWEEP_INTERVAL_MS,
    run: async () => {
      const report = await new SweepExpiredUploads({ uploads: uploads(), storage: storage(), clock: ports.clock() }).execute();
      if (report.deleted > 0) ports.logger().info('expired uploads deleted', { count: report.deleted });
      if (report.failedKeys.length > 0) ports.logger().warn('expired upload files could not be deleted', { keys: report.failedKeys.slice(0, 20) });
      return report.deleted;
    },
  });
}
