//! Identifiers of the vehicle world as newtypes: a [`Plate`], [`Vin`],
//! [`Phone`] or [`IdNumber`] can only be made by `parse`, so a value that
//! exists is a valid one. Each refusal carries the Chinese text users see.

use std::fmt;

use crate::error::ServiceError;

/// Why a value is not a valid identifier; `Display` is the user's message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    #[error("请输入车牌号")]
    PlateMissing,
    #[error("请输入正确的车牌号，如 粤B12345 或新能源车牌 粤BD12345")]
    PlateFormat,
    #[error("请输入车架号(VIN)")]
    VinMissing,
    #[error("车架号(VIN)须为 17 位字母或数字，且不含 I、O、Q")]
    VinFormat,
    #[error("车架号(VIN)第 9 位校验位不正确，请核对")]
    VinCheckDigit,
    #[error("请输入手机号")]
    PhoneMissing,
    #[error("请输入正确的手机号")]
    PhoneFormat,
    #[error("请输入身份证号")]
    IdNumberMissing,
    #[error("请输入正确的 18 位身份证号")]
    IdNumberFormat,
    #[error("身份证号校验位不正确，请核对")]
    IdNumberCheckDigit,
}

impl IdError {
    /// The refusal as a 4000 naming `field`.
    pub fn on(self, field: &str) -> ServiceError {
        ServiceError::invalid(field, self.to_string())
    }
}

macro_rules! newtype {
    ($name:ident) => {
        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }

            pub fn into_inner(self) -> String {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
    };
}

/// Province abbreviations that open a civil plate (GA 36).
const PROVINCES: &str = "京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼";
/// Last characters of special ordinary plates: trailer, learner, police, HK, Macau.
const PLATE_SUFFIXES: &str = "挂学警港澳";
/// Letters opening (small) or closing (large) a new-energy serial: D, A, B, C, E
/// pure electric; F, G, H, J, K others.
const NEW_ENERGY_LETTERS: &str = "DABCEFGHJK";

/// Serial characters: digits and capital letters except I and O.
fn is_serial_char(c: char) -> bool {
    c.is_ascii_digit() || (c.is_ascii_uppercase() && c != 'I' && c != 'O')
}

/// A Chinese civil plate number: 7 characters (粤B12345, 粤B1234挂) or
/// 8 for new-energy vehicles (粤BD12345 small, 粤B12345D large).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Plate(String);
newtype!(Plate);

impl Plate {
    /// Accepts lower-case letters, spaces and the middle dot (粤B·12345).
    /// Allocates only the plate it returns: a batch filter parses 250 at once.
    pub fn parse(input: &str) -> Result<Plate, IdError> {
        // The longest plate has 8 characters; a longer input is no plate.
        let mut held = ['\0'; 8];
        let mut len = 0;
        for c in input
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '·' && *c != '.')
        {
            *held.get_mut(len).ok_or(IdError::PlateFormat)? = c.to_ascii_uppercase();
            len += 1;
        }
        if len == 0 {
            return Err(IdError::PlateMissing);
        }
        let chars = &held[..len];
        let head_ok = chars.len() >= 2
            && PROVINCES.contains(chars[0])
            && chars[1].is_ascii_uppercase()
            && chars[1] != 'I'
            && chars[1] != 'O';
        if !head_ok {
            return Err(IdError::PlateFormat);
        }
        let serial = &chars[2..];
        let ok = match serial.len() {
            5 => serial.iter().all(|c| is_serial_char(*c)),
            6 => {
                // Small new-energy: D1234 5 / DA234 5; large: 12345 D.
                let small = NEW_ENERGY_LETTERS.contains(serial[0])
                    && is_serial_char(serial[1])
                    && serial[2..].iter().all(char::is_ascii_digit);
                let large = serial[..5].iter().all(char::is_ascii_digit)
                    && NEW_ENERGY_LETTERS.contains(serial[5]);
                small || large
            }
            _ => false,
        };
        let special = serial.len() == 5
            && serial[..4].iter().all(|c| is_serial_char(*c))
            && PLATE_SUFFIXES.contains(serial[4]);
        if ok || special {
            Ok(Plate(chars.iter().collect()))
        } else {
            Err(IdError::PlateFormat)
        }
    }

    /// An 8-character new-energy plate.
    pub fn is_new_energy(&self) -> bool {
        self.0.chars().count() == 8
    }
}

/// A vehicle identification number: 17 characters without I, O, Q whose
/// 9th is the ISO 3779 check digit (mandatory in China, GB 16735).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Vin(String);
newtype!(Vin);

const VIN_WEIGHTS: [u32; 17] = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];

fn vin_value(c: char) -> Option<u32> {
    Some(match c {
        '0'..='9' => c.to_digit(10)?,
        'A' | 'J' => 1,
        'B' | 'K' | 'S' => 2,
        'C' | 'L' | 'T' => 3,
        'D' | 'M' | 'U' => 4,
        'E' | 'N' | 'V' => 5,
        'F' | 'W' => 6,
        'G' | 'P' | 'X' => 7,
        'H' | 'Y' => 8,
        'R' | 'Z' => 9,
        _ => return None,
    })
}

impl Vin {
    pub fn parse(input: &str) -> Result<Vin, IdError> {
        let vin: String = input.trim().to_ascii_uppercase();
        if vin.is_empty() {
            return Err(IdError::VinMissing);
        }
        let chars: Vec<char> = vin.chars().collect();
        if chars.len() != 17 {
            return Err(IdError::VinFormat);
        }
        let mut sum = 0;
        for (c, weight) in chars.iter().zip(VIN_WEIGHTS) {
            sum += vin_value(*c).ok_or(IdError::VinFormat)? * weight;
        }
        if Vin::check_char(sum) != chars[8] {
            return Err(IdError::VinCheckDigit);
        }
        Ok(Vin(vin))
    }

    fn check_char(sum: u32) -> char {
        match sum % 11 {
            10 => 'X',
            d => char::from_digit(d, 10).unwrap_or('0'),
        }
    }

    /// The check digit the 9th character must be for `vin` (17 valid characters),
    /// for generating demo data and tests.
    pub fn check_digit_for(vin: &str) -> Option<char> {
        let chars: Vec<char> = vin.to_ascii_uppercase().chars().collect();
        if chars.len() != 17 {
            return None;
        }
        let mut sum = 0;
        for (c, weight) in chars.iter().zip(VIN_WEIGHTS) {
            sum += vin_value(*c)? * weight;
        }
        Some(Vin::check_char(sum))
    }
}

/// A mainland mobile number: 11 digits starting with 1 (console spec §5).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Phone(String);
newtype!(Phone);

impl Phone {
    pub fn parse(input: &str) -> Result<Phone, IdError> {
        let phone = input.trim();
        if phone.is_empty() {
            return Err(IdError::PhoneMissing);
        }
        if phone.len() == 11 && phone.starts_with('1') && phone.bytes().all(|b| b.is_ascii_digit())
        {
            Ok(Phone(phone.to_owned()))
        } else {
            Err(IdError::PhoneFormat)
        }
    }
}

/// A resident ID number (GB 11643): 17 digits, a valid birth date at 7-14,
/// and the ISO 7064 MOD 11-2 check character (0-9 or X).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdNumber(String);
newtype!(IdNumber);

const ID_WEIGHTS: [u32; 17] = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const ID_CHECK: [char; 11] = ['1', '0', 'X', '9', '8', '7', '6', '5', '4', '3', '2'];

impl IdNumber {
    pub fn parse(input: &str) -> Result<IdNumber, IdError> {
        let id = input.trim().to_ascii_uppercase();
        if id.is_empty() {
            return Err(IdError::IdNumberMissing);
        }
        let chars: Vec<char> = id.chars().collect();
        let digits_ok = chars.len() == 18
            && chars[..17].iter().all(char::is_ascii_digit)
            && (chars[17].is_ascii_digit() || chars[17] == 'X');
        if !digits_ok {
            return Err(IdError::IdNumberFormat);
        }
        let birth = &id[6..14];
        if chrono::NaiveDate::parse_from_str(birth, "%Y%m%d").is_err() || &id[6..8] < "19" {
            return Err(IdError::IdNumberFormat);
        }
        if IdNumber::check_char(&chars[..17]) != chars[17] {
            return Err(IdError::IdNumberCheckDigit);
        }
        Ok(IdNumber(id))
    }

    fn check_char(first17: &[char]) -> char {
        let sum: u32 = first17
            .iter()
            .zip(ID_WEIGHTS)
            .map(|(c, w)| c.to_digit(10).unwrap_or(0) * w)
            .sum();
        ID_CHECK[(sum % 11) as usize]
    }

    /// The check character for 17 leading digits, for demo data and tests.
    pub fn check_char_for(first17: &str) -> Option<char> {
        let chars: Vec<char> = first17.chars().collect();
        (chars.len() == 17 && chars.iter().all(char::is_ascii_digit))
            .then(|| IdNumber::check_char(&chars))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_and_special_seven_character_plates_are_accepted_and_normalised() {
        for plate in ["粤B12345", "京AF0236", "沪C1234挂", "川A1B2C3"] {
            assert_eq!(Plate::parse(plate).unwrap().as_str(), plate);
        }
        assert_eq!(Plate::parse(" 粤b·12345 ").unwrap().as_str(), "粤B12345");
        assert!(!Plate::parse("粤B12345").unwrap().is_new_energy());
    }

    #[test]
    fn eight_character_new_energy_plates_small_and_large_are_accepted() {
        for plate in [
            "粤BD12345",
            "沪AF12345",
            "京ADA1234",
            "粤B12345D",
            "苏E67890F",
        ] {
            let parsed = Plate::parse(plate).unwrap();
            assert!(parsed.is_new_energy(), "{plate}");
        }
    }

    #[test]
    fn malformed_plates_are_refused_with_a_chinese_message() {
        for plate in [
            "B12345",
            "粤12345",
            "粤B1234",
            "粤BI2345",
            "粤BX12345",
            "粤B123456",
            "AA12345",
            "粤BD123456",
            "粤B 1234 5678 9012",
        ] {
            assert_eq!(Plate::parse(plate), Err(IdError::PlateFormat), "{plate}");
        }
        assert_eq!(Plate::parse("  "), Err(IdError::PlateMissing));
        assert!(IdError::PlateFormat.to_string().contains("车牌号"));
    }

    #[test]
    fn a_vin_with_a_valid_check_digit_is_accepted() {
        // The textbook example, check digit X.
        assert_eq!(
            Vin::parse("1m8gdm9axkp042788").unwrap().as_str(),
            "1M8GDM9AXKP042788"
        );
        assert_eq!(Vin::check_digit_for("LGXCE4CB0P0123456"), Some('9'));
        let digit = Vin::check_digit_for("LSVAU2180N2183294").unwrap();
        let vin = format!("LSVAU218{digit}N2183294");
        assert!(Vin::parse(&vin).is_ok(), "{vin}");
    }

    #[test]
    fn a_vin_with_a_wrong_check_digit_length_or_letter_is_refused() {
        assert_eq!(Vin::parse("1M8GDM9A1KP042788"), Err(IdError::VinCheckDigit));
        assert_eq!(Vin::parse("1M8GDM9AXKP04278"), Err(IdError::VinFormat));
        assert_eq!(Vin::parse("1M8GDM9AXKP0427O8"), Err(IdError::VinFormat));
        assert_eq!(Vin::parse("IM8GDM9AXKP042788"), Err(IdError::VinFormat));
        assert_eq!(Vin::parse(""), Err(IdError::VinMissing));
        assert!(IdError::VinCheckDigit.to_string().contains("校验位"));
    }

    #[test]
    fn phones_are_eleven_digits_starting_with_one() {
        assert_eq!(
            Phone::parse(" 13800000001 ").unwrap().as_str(),
            "13800000001"
        );
        for phone in ["23800000001", "1380000000", "138000000012", "1380000000a"] {
            assert_eq!(Phone::parse(phone), Err(IdError::PhoneFormat), "{phone}");
        }
        assert_eq!(Phone::parse(""), Err(IdError::PhoneMissing));
    }

    #[test]
    fn id_numbers_need_a_real_birth_date_and_the_gb11643_check_character() {
        // 11010519491231002X is the standard's own example.
        assert_eq!(
            IdNumber::parse("11010519491231002x").unwrap().as_str(),
            "11010519491231002X"
        );
        assert_eq!(IdNumber::check_char_for("44030419900101123"), Some('3'));
        assert!(IdNumber::parse("440304199001011233").is_ok());
        assert_eq!(
            IdNumber::parse("440304199001011237"),
            Err(IdError::IdNumberCheckDigit)
        );
        assert_eq!(
            IdNumber::parse("440304199013011233"),
            Err(IdError::IdNumberFormat)
        );
        assert_eq!(
            IdNumber::parse("44030419900101123"),
            Err(IdError::IdNumberFormat)
        );
        assert_eq!(IdNumber::parse(""), Err(IdError::IdNumberMissing));
    }

    #[test]
    fn a_refusal_becomes_a_field_error_naming_the_field() {
        let err = IdError::VinCheckDigit.on("vin");
        assert_eq!(err.code, crate::ErrorCode::BadRequest);
        assert_eq!(err.fields[0].field, "vin");
        assert_eq!(err.fields[0].message, IdError::VinCheckDigit.to_string());
    }
}
