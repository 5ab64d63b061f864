import { isNewEnergyPlate, isValidPlate, normalisePlate, vinProblem } from './vehicle-rules';

describe('vehicle form rules (issue 9)', () => {
  it('accepts 7-character plates, special suffixes and both 8-character new-energy forms', () => {
    for (const plate of ['粤B12345', '京AF0236', '沪C1234挂', '川A1B2C3']) {
      expect(isValidPlate(plate), plate).toBe(true);
      expect(isNewEnergyPlate(plate), plate).toBe(false);
    }
    for (const plate of ['粤BD12345', '沪AF12345', '粤B12345D', '苏E67890F', '浙AD12345']) {
      expect(isValidPlate(plate), plate).toBe(true);
      expect(isNewEnergyPlate(plate), plate).toBe(true);
    }
  });

  it('refuses malformed plates', () => {
    for (const plate of ['B12345', '粤12345', '粤B1234', '粤BI2345', '粤BX12345', '粤B123456', 'AA12345', '粤BD1234X', '']) {
      expect(isValidPlate(plate), plate).toBe(false);
    }
  });

  it('normalises case, spaces and the middle dot as the server does', () => {
    expect(normalisePlate(' 粤b·12345 ')).toBe('粤B12345');
    expect(isValidPlate('粤b·d12345')).toBe(true);
  });

  it('wants 17 characters without I, O, Q and the right check digit', () => {
    expect(vinProblem('1M8GDM9AXKP042788')).toBeUndefined();
    expect(vinProblem('1m8gdm9axkp042788')).toBeUndefined();
    expect(vinProblem('1M8GDM9A1KP042788')).toBe('checkDigit');
    expect(vinProblem('1M8GDM9AXKP04278')).toBe('format');
    expect(vinProblem('1M8GDM9AXKP0427O8')).toBe('format');
    expect(vinProblem('IM8GDM9AXKP042788')).toBe('format');
  });
});
