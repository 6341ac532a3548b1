import type { Request, Response } from 'express';
import type { RouteModule } from '../http-app.ts';

/** What optional parts this deployment runs; the web client shows their pages only when they are here. */
export interface Features {
  /** Keys of configured OpenID Connect providers (`GET /auth/{provider}`). */
  oidcProviders: string[];
  /** Social platforms a user may connect and publish to (`GET /connect/{platform}`). */
  socialPlatforms: string[];
  /** `POST /llm/chat` answers. */
  chat: boolean;
  /** `POST /auth/forgot-password` exists: the service mails reset links (SMTP_URL). */
  passwordResetByMail: boolean;
  /** `POST /auth/email` exists: users change their email, confirmed by mail (SMTP_URL). */
  emailChange: boolean;
}

/** A feature module's contribution; contributions are merged (lists concatenated, flags or-ed). */
export type FeatureContribution = Partial<Features>;

export function mergeFeatures(contributions: readonly FeatureContribution[]): Features {
  const merged: Features = { oidcProviders: [], socialPlatforms: [], chat: false, passwordResetByMail: false, emailChange: false };
  for (const part of contributions) {
    merged.oidcProviders.push(...(part.oidcProviders ?? []));
    merged.socialPlatforms.push(...(part.socialPlatforms ?? []));
    merged.chat ||= part.chat ?? false;
    merged.passwordResetByMail ||= part.passwordResetByMail ?? false;
    merged.emailChange ||= part.emailChange ?? false;
  }
  return merged;
}

/** `features` is read on each request: contributions bound after the app was built still count. */
export const featuresRoutes =
  (features: () => Features): RouteModule =>
  (api) => {
    api.add(
      {
        method: 'get',
        path: '/features',
        summary: 'Optional parts this deployment runs (login providers, social platforms, chat, reset links by mail, change of email)',
        tag: 'health',
        auth: 'public',
        responses: {
          200: {
            description: 'The features',
            schema: {
              type: 'object',
              required: ['oidcProviders', 'socialPlatforms', 'chat', 'passwordResetByMail', 'emailChange'],
              properties: {
                oidcProviders: { type: 'array', items: { type: 'string' } },
                socialPlatforms: { type: 'array', items: { type: 'string' } },
                chat: { type: 'boolean' },
                passwordResetByMail: { type: 'boolean' },
                emailChange: { type: 'boolean' },
              },
            },
          },
        },
      },
      (_req: Request, res: Response) => {
        res.json(features());
      },
    );
  };
