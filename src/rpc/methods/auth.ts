/** API token methods (`lotus:api/api_common.go`, group Auth). */
import { declareMethod } from '../method.js';
import { permissionsParam, stringParam } from '../params.js';
import { bytesResult, jsonResult } from '../results.js';
import { permissionListSchema } from '../schemas.js';

export const authNew = declareMethod({
  name: 'AuthNew',
  description:
    'Mints a token granting exactly the given permissions. As in Lotus the token comes back base64-encoded (the Go result type is []byte); decode it before use.',
  permission: 'admin',
  params: [permissionsParam('permissions', 'e.g. ["read", "write"]; a token grants only what it lists')],
  result: bytesResult('the JWT, base64-encoded'),
  handler: async ([permissions], { tokens }) => new TextEncoder().encode(await tokens.create(permissions)),
});

export const authVerify = declareMethod({
  name: 'AuthVerify',
  description: 'Checks a token and returns the permissions it grants.',
  permission: 'read',
  params: [stringParam('token', 'a JWT')],
  result: jsonResult<string[]>('permissions', 'the Allow list of the token', permissionListSchema),
  handler: ([token], { tokens }) => tokens.verify(token),
});

export const authMethods = [authNew, authVerify];
