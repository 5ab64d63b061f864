/**
 * The role form's function permissions: the catalogue tree, its labels in the
 * current language, and what checking a node means. A group's value is a
 * permission of its own (the menu group), so the tree is checked strictly with
 * these rules: checking a node checks its whole subtree and its ancestors;
 * unchecking a node unchecks its subtree and leaves the ancestors alone (a page
 * can stay without its operations). What is stored is exactly the checked set;
 * on display a stored group whose subtree is not all stored reads half-checked,
 * so the state survives save and reopen.
 */
import type { PermissionNode } from '../api/roles';

export interface PermissionTreeNode {
  key: string;
  title: string;
  children?: PermissionTreeNode[];
}

export function permissionLabel(node: PermissionNode, language: string): string {
  const lang = language.toLowerCase();
  const label = lang.startsWith('en') ? node.labelEn : lang.startsWith('ja') ? node.labelJa : node.labelZh;
  return label || node.labelZh || node.value;
}

/** antd Tree data with labels in `language`. */
export function permissionTreeData(nodes: readonly PermissionNode[], language: string): PermissionTreeNode[] {
  return nodes.map((n) => ({
    key: n.value,
    title: permissionLabel(n, language),
    ...(n.children?.length ? { children: permissionTreeData(n.children, language) } : {}),
  }));
}

export interface PermissionIndex {
  parent: ReadonlyMap<string, string>;
  children: ReadonlyMap<string, readonly string[]>;
}

export function indexPermissions(nodes: readonly PermissionNode[]): PermissionIndex {
  const parent = new Map<string, string>();
  const children = new Map<string, string[]>();
  const walk = (list: readonly PermissionNode[], up?: string) => {
    for (const n of list) {
      if (up !== undefined) parent.set(n.value, up);
      children.set(n.value, (n.children ?? []).map((c) => c.value));
      walk(n.children ?? [], n.value);
    }
  };
  walk(nodes);
  return { parent, children };
}

function subtree(value: string, index: PermissionIndex): string[] {
  return [value, ...(index.children.get(value) ?? []).flatMap((c) => subtree(c, index))];
}

function ancestors(value: string, index: PermissionIndex): string[] {
  const out: string[] = [];
  for (let up = index.parent.get(value); up !== undefined; up = index.parent.get(up)) out.push(up);
  return out;
}

/** The checked values after (un)checking `value`, in a stable order. */
export function togglePermission(checked: readonly string[], value: string, on: boolean, index: PermissionIndex): string[] {
  const next = new Set(checked);
  if (on) {
    for (const v of [...subtree(value, index), ...ancestors(value, index)]) next.add(v);
  } else {
    for (const v of subtree(value, index)) next.delete(v);
  }
  return [...next].sort();
}

/**
 * How the stored values show in the tree: fully checked when the node's whole
 * subtree is stored, half-checked when it is stored (or has stored descendants)
 * but not all of its subtree is.
 */
export function displayedChecks(values: readonly string[], index: PermissionIndex): { checked: string[]; halfChecked: string[] } {
  const stored = new Set(values);
  const checked: string[] = [];
  const halfChecked: string[] = [];
  for (const value of values) {
    if (subtree(value, index).every((v) => stored.has(v))) checked.push(value);
    else halfChecked.push(value);
  }
  return { checked, halfChecked };
}
