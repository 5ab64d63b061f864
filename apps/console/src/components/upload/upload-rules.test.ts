import { checkCount, checkFile, IMPORT_MAX_MB, IMPORT_TYPES, isBusy, isDuplicate, submitCheck, uploadingMessage } from './upload-rules';
import { i18n } from '@/lib/i18n';

const MB = 1024 * 1024;
const text = (m?: { key: string; params?: Record<string, string | number> }) => (m ? i18n.t(m.key, m.params) : undefined);

describe('upload rules (console spec §5)', () => {
  it('refuses names with a comma or plus, or no name', () => {
    expect(text(checkFile({ name: 'a,b.xlsx', size: 1 }, {}))).toBe('文件名不能包含以下特殊符号：[,+].');
    expect(text(checkFile({ name: 'a+b.xlsx', size: 1 }, {}))).toBe('文件名不能包含以下特殊符号：[,+].');
    expect(text(checkFile({ name: '', size: 1 }, {}))).toBe('文件名不能包含以下特殊符号：[,+].');
    expect(checkFile({ name: '车辆.xlsx', size: 1 }, {})).toBeUndefined();
  });

  it('accepts only the listed types', () => {
    expect(text(checkFile({ name: 'a.pdf', size: 1 }, { types: IMPORT_TYPES }))).toBe('上传文件只能是 xls、xlsx 格式!');
    expect(checkFile({ name: 'A.XLSX', size: 1 }, { types: IMPORT_TYPES })).toBeUndefined();
  });

  it('limits the size in MB, in kb under 1 MB', () => {
    expect(text(checkFile({ name: 'a.xlsx', size: 11 * MB }, { maxSizeMb: IMPORT_MAX_MB }))).toBe('上传文件必须小于10M!');
    expect(text(checkFile({ name: 'a.png', size: 600 * 1024 }, { maxSizeMb: 0.5 }))).toBe('上传文件必须小于512kb!');
    expect(checkFile({ name: 'a.xlsx', size: 9 * MB }, { maxSizeMb: 10 })).toBeUndefined();
  });

  it('warns with limit, chosen and total when the count is exceeded (default 10)', () => {
    expect(text(checkCount(10, 3, 8))).toBe('当前限制选择 10 个文件，本次选择了 3 个文件，共选择了 11 个文件');
    expect(checkCount(10, 2, 8)).toBeUndefined();
  });

  it('refuses a file already chosen', () => {
    expect(isDuplicate({ name: 'a.xlsx', size: 10 }, [{ name: 'a.xlsx', size: 10 }])).toBe(true);
    expect(isDuplicate({ name: 'a.xlsx', size: 10 }, [{ name: 'b.xlsx', size: 10 }])).toBe(false);
  });

  it('asks for patience from 5 MB', () => {
    expect(text(uploadingMessage(6 * MB))).toBe('当前文件有6M，请耐心等待');
    expect(text(uploadingMessage(MB))).toBe('上传中...');
  });

  it('stays busy while a file is ready or uploading', () => {
    expect(isBusy(['success', 'uploading'])).toBe(true);
    expect(isBusy(['ready'])).toBe(true);
    expect(isBusy(['success', 'error'])).toBe(false);
  });

  it('refuses a manual submit without files, or while uploading', () => {
    expect(text(submitCheck([]))).toBe('请先选择上传文件');
    expect(text(submitCheck(['uploading']))).toBe('文件正在上传中，请稍候');
    expect(submitCheck(['success'])).toBeUndefined();
  });
});
