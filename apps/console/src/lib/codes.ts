/** Code lists (API enums) as select options and labels, translated under one key prefix. */

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** Select options of a code list, labelled from `<prefix>.<code>`. */
export const codeOptions = (t: Translate, prefix: string, codes: readonly string[]) => codes.map((value) => ({ value, label: t(`${prefix}.${value}`) }));

/** The label of one code ('' for none or unknown: the table shows '--'). */
export const codeLabel = (t: Translate, prefix: string, code: string | null | undefined) => (code ? t(`${prefix}.${code}`, { defaultValue: '' }) : '');

/** Keeps only the values of a code list (URL filters are text). */
export const codesOf = <T extends string>(values: string[], codes: readonly T[]): T[] => values.filter((v): v is T => (codes as readonly string[]).includes(v));
