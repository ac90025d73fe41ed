/**
 * The one place a Lambda entry's AWS SDK clients are made: one client per
 * service and process, shared by every adapter over that service (the
 * registry and the import jobs share one DynamoDB client). Each entry imports
 * only the client classes it uses and passes them here, so an entry that
 * never reaches KMS neither bundles nor loads its client.
 */
// Lambda sets AWS_REGION and the credentials; the SDK's defaults read them.
const CLIENT_OPTIONS = {};

const made = new Map<unknown, unknown>();

export function awsClient<C>(Client: new (options: typeof CLIENT_OPTIONS) => C): C {
  let client = made.get(Client) as C | undefined;
  if (client === undefined) {
    client = new Client(CLIENT_OPTIONS);
    made.set(Client, client);
  }
  return client;
}
