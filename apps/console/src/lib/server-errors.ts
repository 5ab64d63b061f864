/**
 * The server's refusals shown on the form fields they name. A 4000 answer lists
 * its fields (`data.fields`, dotted for nested terms: `rent.monthlyRentFen`); a
 * 4009 lists the field whose value is taken the same way, and one that names
 * none (a state that changed) is placed by the form's `conflictField`.
 */
import type { FormInstance } from 'antd';
import { ApiError, Code } from '@/lib/api-client';

export type FieldPath = string | (string | number)[];

/**
 * Puts the server's messages under their fields. `toField` maps a server field
 * to the form's name (undefined: no such field, the toast already said it);
 * `conflictField` picks the field a 4009 concerns. Returns whether any was shown.
 */
export function showServerErrors(
  form: FormInstance,
  err: unknown,
  { toField = (f) => f, conflictField }: { toField?: (field: string) => FieldPath | undefined; conflictField?: (message: string) => FieldPath | undefined } = {},
): boolean {
  if (!(err instanceof ApiError)) return false;
  const fields: { name: FieldPath; errors: string[] }[] = [];
  if (err.code === Code.Validation || err.code === Code.Conflict) {
    for (const f of err.fields) {
      const name = toField(f.field);
      if (name !== undefined) fields.push({ name, errors: [f.message] });
    }
  }
  if (!fields.length && err.code === Code.Conflict && conflictField) {
    const message = err.serverMessage || err.message;
    const name = conflictField(message);
    if (name !== undefined) fields.push({ name, errors: [message] });
  }
  if (fields.length) form.setFields(fields);
  return fields.length > 0;
}
