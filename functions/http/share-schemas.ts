/** The share link shapes of the OpenAPI document (issue 40, part 5). */
import { z } from 'zod';
import { Timestamp } from './schemas.ts';

export const ShareLink = z
  .object({ id: z.string(), label: z.string(), password: z.boolean().describe('Whether readers must unlock it with a password'), created_at: Timestamp })
  .meta({ id: 'ShareLink' });
export const ShareLinkList = z.object({ shares: z.array(ShareLink) }).meta({ id: 'ShareLinkList' });
export const CreateShareLinkRequest = z
  .object({
    label: z.string().max(100).optional(),
    password: z.string().min(8).max(200).nullable().optional().describe('Readers enter it once; stored only as a slow hash (scrypt)'),
  })
  .meta({ id: 'CreateShareLinkRequest' });
export const CreatedShareLink = ShareLink.extend({
  slug: z.string().describe('The secret part of the link (24 base64url characters): shown only here'),
  share_path: z.string().describe('The dashboard page of the link: /share/link/{slug}'),
  embed_path: z.string().describe('The page other sites may frame, when the site lists their origins in embed_origins: /embed/{slug}'),
}).meta({ id: 'CreatedShareLink' });
export const RevokedShareLink = z.object({ revoked: z.string() }).meta({ id: 'RevokedShareLink' });
export const UnlockShareRequest = z.object({ password: z.string() }).meta({ id: 'UnlockShareRequest' });
export const ShareGrant = z
  .object({ grant: z.string().describe('Send it as X-Share-Grant with each read of this link'), expires_at: Timestamp })
  .meta({ id: 'ShareGrant' });
export const SharedSite = z
  .object({ hostname: z.string(), display_name: z.string(), label: z.string(), password: z.boolean() })
  .meta({ id: 'SharedSite' });
