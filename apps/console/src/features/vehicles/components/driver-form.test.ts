import dayjs from 'dayjs';
import type { Driver } from '../api/drivers';
import { driverBody, driverFormValues } from './driver-form';
import { idCardExpireProblem } from './driver-rules';

const stored = {
  id: 'd1',
  orgId: 'o1',
  name: '张伟',
  phone: '138****5678',
  idNumber: '110***********002X',
  address: '广东省深圳市南*****',
  employeeNo: 'E001',
  licenceClass: 'C1',
  licenceFirstIssueTime: '2015-06-01T04:00:00Z',
  licenceExpireTime: '2031-06-01T04:00:00Z',
  licenceFront: { name: 'front.jpg', key: '', contentType: 'image/jpeg', sizeBytes: 1024 },
  licenceBack: null,
  idCardFront: null,
  idCardBack: { name: 'back.png', key: '', contentType: 'image/png', sizeBytes: 2048 },
  status: 'SUSPENDED',
  hireTime: '',
  remark: '夜班',
} as unknown as Driver;

describe('driver form', () => {
  it('sends a new driver with dates as yyyy-MM-dd, an upper-case ID number, active by default and uploaded images by key', () => {
    const body = driverBody({
      orgId: 'o1',
      name: ' 李娜 ',
      phone: '13912345678',
      idNumber: '11010519491231002x',
      licenceClass: 'B2',
      licenceExpireTime: dayjs('2030-05-06T10:00:00'),
      licenceFront: [{ name: 'licence.jpg', url: 'https://files/x', saveUrl: 'ent/feedback/licence.jpg' }],
    });
    expect(body).toMatchObject({
      orgId: 'o1', name: '李娜', phone: '13912345678', idNumber: '11010519491231002X', licenceClass: 'B2',
      licenceExpireTime: '2030-05-06', licenceFirstIssueTime: '', hireTime: '', status: 'ACTIVE',
      licenceFront: { key: 'ent/feedback/licence.jpg', name: 'licence.jpg' }, licenceBack: null, idCardFront: null, idCardBack: null,
    });
  });

  it('edits with the personal values empty (the server keeps them) unless retyped', () => {
    const values = driverFormValues(stored);
    expect(values).toMatchObject({ phone: '', idNumber: '', address: '', name: '张伟', licenceClass: 'C1', status: 'SUSPENDED' });
    expect(values.licenceExpireTime?.format('YYYY-MM-DD')).toBe('2031-06-01');
    const body = driverBody(values, stored);
    expect(body).toMatchObject({ phone: '', idNumber: '', address: '', status: 'SUSPENDED', licenceExpireTime: '2031-06-01' });
    expect(driverBody({ ...values, phone: '13700000000' }, stored).phone).toBe('13700000000');
  });

  it('keeps a stored image as the server named it, drops a removed one and sends a replacement by key', () => {
    const values = driverFormValues(stored);
    expect(values.licenceFront).toEqual([{ name: 'front.jpg', url: '' }]);
    expect(values.licenceBack).toEqual([]);
    const kept = driverBody(values, stored);
    expect(kept.licenceFront).toEqual(stored.licenceFront);
    expect(kept.idCardBack).toEqual(stored.idCardBack);
    const changed = driverBody({ ...values, licenceFront: [], idCardBack: [{ name: 'new.png', url: 'https://x', saveUrl: 'k/new.png' }] }, stored);
    expect(changed.licenceFront).toBeNull();
    expect(changed.idCardBack).toMatchObject({ key: 'k/new.png', name: 'new.png' });
  });
});

describe('driver form: ID card validity', () => {
  it('sends the end as yyyy-MM-dd, or long-term with no end', () => {
    const end = driverBody({ idCardExpireTime: dayjs('2035-06-30T08:00:00') });
    expect(end).toMatchObject({ idCardExpireTime: '2035-06-30', idCardLongTerm: false });
    const longTerm = driverBody({ idCardExpireTime: dayjs('2035-06-30T08:00:00'), idCardLongTerm: true });
    expect(longTerm).toMatchObject({ idCardExpireTime: '', idCardLongTerm: true });
  });

  it('edits a stored long-term card as long-term and a dated one by its day', () => {
    expect(driverFormValues({ ...stored, idCardExpireTime: '', idCardLongTerm: true })).toMatchObject({ idCardExpireTime: null, idCardLongTerm: true });
    const dated = driverFormValues({ ...stored, idCardExpireTime: '2030-02-01T04:00:00Z', idCardLongTerm: false });
    expect(dated.idCardExpireTime?.format('YYYY-MM-DD')).toBe('2030-02-01');
  });

  it('refuses an end before 1990 or more than 20 years ahead, as the service does', () => {
    const today = dayjs('2026-11-29');
    expect(idCardExpireProblem(dayjs('1989-12-31'), today)).toBe('tooEarly');
    expect(idCardExpireProblem(dayjs('1990-01-01'), today)).toBeUndefined();
    expect(idCardExpireProblem(dayjs('2046-11-29'), today)).toBeUndefined();
    expect(idCardExpireProblem(dayjs('2046-11-30'), today)).toBe('tooLate');
    expect(idCardExpireProblem(null, today)).toBeUndefined();
  });
});
