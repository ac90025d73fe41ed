/**
 * IconStore on AWS: one object per site in the icons bucket, `icons/{hostname}`,
 * the image as its body (empty when none was found) and the check time as metadata.
 */
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { IconStore, SiteIcon } from '#ports/icon-store.ts';

const key = (hostname: string) => `icons/${hostname}`;
/** The content type of the marker object that says "looked, found nothing". */
const NONE = 'application/x-tinytrack-no-icon';

export class S3IconStore implements IconStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async get(hostname: string): Promise<SiteIcon | null> {
    try {
      const r = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key(hostname) }));
      const body = Buffer.from((await r.Body?.transformToByteArray()) ?? []);
      const checkedAt = r.Metadata?.['checked-at'] ?? (r.LastModified ?? new Date(0)).toISOString();
      const contentType = r.ContentType ?? NONE;
      return { image: contentType === NONE || body.length === 0 ? null : { body, contentType }, checkedAt };
    } catch (e) {
      if (e instanceof NoSuchKey || (e as Error).name === 'NoSuchKey') return null;
      throw e;
    }
  }

  async put(hostname: string, icon: SiteIcon): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key(hostname),
        Body: icon.image?.body ?? Buffer.alloc(0),
        ContentType: icon.image?.contentType ?? NONE,
        Metadata: { 'checked-at': icon.checkedAt },
      }),
    );
  }

  async delete(hostname: string): Promise<void> {
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key(hostname) }));
  }
}
