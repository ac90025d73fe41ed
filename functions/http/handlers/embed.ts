/**
 * The embeddable share view on AWS, `GET /embed/{slug}`: the dashboard's
 * page (inlined at bundling time) with the `frame-ancestors` of the link's
 * site (its `embed_origins`), or with framing refused for an unknown,
 * revoked or malformed slug and a site without a list, as the local server
 * answers it (the same headers, functions/http/dashboard-page.ts).
 */
import type { SignIn } from '#dashboard/config.ts';
import { createGroupHandler, type ApiRequest } from '../api.ts';
import { embedPageHeaders, embedSlugOf } from '../dashboard-page.ts';
import { embedOriginsOf, type ShareServices } from '../share-access.ts';

export interface EmbedServices extends ShareServices {
  /** The built index.html. */
  page: string;
  signIn: Pick<SignIn, 'type'>;
}

async function embedPage(req: ApiRequest<EmbedServices>) {
  const slug = embedSlugOf(req.params.slug ?? '');
  const origins = slug === null ? [] : await embedOriginsOf(req.services, slug);
  return { statusCode: 200, headers: { 'Content-Type': 'text/html; charset=utf-8', ...embedPageHeaders(req.services.signIn, origins) }, body: req.services.page };
}

export const handler = createGroupHandler<EmbedServices>({ 'GET /embed/{slug}': embedPage });

/** The group's Lambda handler over what its composition root built (functions/aws/edge/embed.ts). */
export const createEmbedHandler = (services: EmbedServices) => handler.lambda(services);
