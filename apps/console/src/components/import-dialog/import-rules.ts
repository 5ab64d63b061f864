/** Pure rules of the bulk-import dialog: file type and size, and the error table of a refused import. */
import { ApiError, Code } from '@/lib/api-client';

/** One problem of one row (`errorList` entry). */
export interface ImportRowError {
  row: number;
  column: string;
  reason: string;
}

/** A 4000 import answer: nothing was written, for these reasons. */
export interface ImportErrorTable {
  errorHeader: string[];
  errorList: ImportRowError[];
}

const isRowError = (e: unknown): e is ImportRowError =>
  !!e && typeof e === 'object' && typeof (e as ImportRowError).row === 'number' && typeof (e as ImportRowError).reason === 'string';

/** The error table of a failed import call, or undefined when it failed otherwise. */
export function importErrorTable(error: unknown): ImportErrorTable | undefined {
  if (!(error instanceof ApiError) || error.code !== Code.Validation) return undefined;
  const data = error.data as Partial<ImportErrorTable> | null | undefined;
  if (!data || !Array.isArray(data.errorList) || data.errorList.length === 0) return undefined;
  return {
    errorHeader: Array.isArray(data.errorHeader) ? data.errorHeader.map(String) : [],
    errorList: data.errorList.filter(isRowError).map((e) => ({ row: e.row, column: String(e.column ?? ''), reason: e.reason })),
  };
}

/** A file as the dialog remembers it: the same name, size and time is the same file. */
export const fileIdentity = (file: File) => `${file.name}|${file.size}|${file.lastModified}`;
