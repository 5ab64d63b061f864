import type { FormInstance } from 'antd';
import { describe, expect, it, vi } from 'vitest';
import { ApiError, Code } from '@/lib/api-client';
import { showServerErrors } from '@/lib/server-errors';

function form() {
  const setFields = vi.fn();
  return { form: { setFields } as unknown as FormInstance, setFields };
}

describe('showServerErrors', () => {
  it('puts a 4000 answer’s messages under the fields it names, mapped to the form’s names', () => {
    const { form: f, setFields } = form();
    const err = new ApiError(Code.Validation, '请输入月租', [{ field: 'rent.monthlyRentFen', message: '请输入月租' }]);
    expect(showServerErrors(f, err, { toField: (name) => name.split('.') })).toBe(true);
    expect(setFields).toHaveBeenCalledWith([{ name: ['rent', 'monthlyRentFen'], errors: ['请输入月租'] }]);
  });

  it('marks the field a 4009 names as taken, without asking the form to guess', () => {
    const { form: f, setFields } = form();
    const guess = vi.fn(() => 'name');
    const err = new ApiError(Code.Conflict, '组织编码已存在', [{ field: 'orgCode', message: '组织编码已存在' }]);
    expect(showServerErrors(f, err, { conflictField: guess })).toBe(true);
    expect(setFields).toHaveBeenCalledWith([{ name: 'orgCode', errors: ['组织编码已存在'] }]);
    expect(guess).not.toHaveBeenCalled();
  });

  it('lets the form place a 4009 that names no field, and shows nothing it cannot place', () => {
    const { form: f, setFields } = form();
    const err = new ApiError(Code.Conflict, '数据已变更，请刷新后重试', [], undefined, '数据已变更，请刷新后重试');
    expect(showServerErrors(f, err)).toBe(false);
    expect(setFields).not.toHaveBeenCalled();
    expect(showServerErrors(f, err, { conflictField: () => 'status' })).toBe(true);
    expect(setFields).toHaveBeenCalledWith([{ name: 'status', errors: ['数据已变更，请刷新后重试'] }]);
  });
});
