import type { Publication, PublicationStatus, SocialPlatform } from '../domain/social.ts';

export type PublicationEnd = { status: 'published'; url: string | null } | { status: 'failed'; error: string };

export interface PublicationRepository {
  /**
   * Records a request to publish: a new row, or a failed row started again as `publication` (its new
   * attempt). Answers the row as it now is and whether this call started it; a row pending, uploading or
   * published is left as it is (started: false), so a repeated request never posts twice.
   */
  request(publication: Publication): Promise<{ started: boolean; publication: Publication }>;
  find(outputId: string, platform: SocialPlatform): Promise<Publication | null>;
  /** The output's publications, by platform. */
  listForOutput(outputId: string): Promise<Publication[]>;
  /** pending → uploading for this attempt (or already uploading for it): false for any other state or attempt. */
  begin(outputId: string, platform: SocialPlatform, attemptId: string, now: Date): Promise<boolean>;
  /** Keeps what resumes the upload, while the attempt is uploading: false otherwise. */
  saveRemoteRef(outputId: string, platform: SocialPlatform, attemptId: string, remoteRef: string, now: Date): Promise<boolean>;
  /** Ends the attempt (from pending or uploading only, and only this attempt): false when it ended already. */
  end(outputId: string, platform: SocialPlatform, attemptId: string, end: PublicationEnd, now: Date): Promise<boolean>;
}

export const ACTIVE_PUBLICATION: readonly PublicationStatus[] = ['pending', 'uploading'];
