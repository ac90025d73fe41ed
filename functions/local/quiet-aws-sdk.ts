/**
 * Imported first by the local entry points (bin/local.ts, bin/tt.ts): the AWS
 * SDK prints a nine-line NodeVersionSupportWarning on every run under Node < 22
 * that an operator can do nothing about per run. This is the SDK's own switch
 * for that one warning; every other warning still prints. Setting the variable
 * to anything but `true` brings it back.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
