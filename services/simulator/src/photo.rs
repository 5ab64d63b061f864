//! A small baseline JPEG for alarm photos: a grey picture whose 8×8 blocks
//! shade by position and by a seed, so each photo differs. Only DC
//! coefficients are coded (every block ends with EOB), which is a valid
//! JPEG any viewer opens, and a few kilobytes at 640×480: several 0x0801
//! packages, as real terminals send.

/// Width and height of a photo, in pixels (multiples of 8).
pub const WIDTH: u16 = 640;
pub const HEIGHT: u16 = 480;

/// The luminance DC code lengths of JPEG Annex K (Table K.3): codes per length 1..=16.
const DC_BITS: [u8; 16] = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
/// Its symbols: categories 0..=11.
const DC_VALUES: [u8; 12] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
/// Every coefficient is quantised by this step.
const QUANT: u8 = 16;

/// Canonical Huffman codes (code, length) by symbol, from code counts per length.
fn codes(bits: &[u8; 16], values: &[u8]) -> Vec<(u16, u8)> {
    let mut table = vec![(0u16, 0u8); 256];
    let mut code = 0u16;
    let mut k = 0;
    for (i, &count) in bits.iter().enumerate() {
        for _ in 0..count {
            table[usize::from(values[k])] = (code, i as u8 + 1);
            code += 1;
            k += 1;
        }
        code <<= 1;
    }
    table
}

/// Entropy-coded bits with 0xFF stuffing.
#[derive(Default)]
struct Bits {
    out: Vec<u8>,
    acc: u32,
    n: u8,
}

impl Bits {
    fn put(&mut self, value: u16, len: u8) {
        for i in (0..len).rev() {
            self.acc = (self.acc << 1) | u32::from((value >> i) & 1);
            self.n += 1;
            if self.n == 8 {
                let byte = self.acc as u8;
                self.out.push(byte);
                if byte == 0xff {
                    self.out.push(0);
                }
                self.acc = 0;
                self.n = 0;
            }
        }
    }

    fn finish(mut self) -> Vec<u8> {
        // Pad the last byte with ones.
        while self.n != 0 {
            self.put(1, 1);
        }
        self.out
    }
}

fn segment(out: &mut Vec<u8>, marker: u8, body: &[u8]) {
    out.extend([0xff, marker]);
    out.extend(((body.len() + 2) as u16).to_be_bytes());
    out.extend(body);
}

/// A JPEG photo; `seed` varies the shading.
pub fn jpeg(seed: u64) -> Vec<u8> {
    let mut out = vec![0xff, 0xd8];
    segment(
        &mut out,
        0xe0,
        &[b'J', b'F', b'I', b'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0],
    );
    let mut dqt = vec![0u8];
    dqt.extend([QUANT; 64]);
    segment(&mut out, 0xdb, &dqt);
    let mut sof = vec![8];
    sof.extend(HEIGHT.to_be_bytes());
    sof.extend(WIDTH.to_be_bytes());
    sof.extend([1, 1, 0x11, 0]);
    segment(&mut out, 0xc0, &sof);
    let mut dht = vec![0x00];
    dht.extend(DC_BITS);
    dht.extend(DC_VALUES);
    segment(&mut out, 0xc4, &dht);
    // AC: one symbol, EOB, coded as a single 0 bit.
    let mut dht = vec![0x10, 1];
    dht.extend([0u8; 15]);
    dht.push(0x00);
    segment(&mut out, 0xc4, &dht);
    segment(&mut out, 0xda, &[1, 1, 0x00, 0, 63, 0]);

    let dc = codes(&DC_BITS, &DC_VALUES);
    let mut bits = Bits::default();
    let mut previous = 0i32;
    let (cols, rows) = (i32::from(WIDTH / 8), i32::from(HEIGHT / 8));
    let phase = (seed % 40) as i32;
    for row in 0..rows {
        for col in 0..cols {
            // Mean grey of the block, 0..=255: a sky-to-road gradient with bands.
            let band = ((col + row + phase) / 5) % 2 * 40;
            let mean = (60 + row * 4 + band).clamp(0, 255);
            // DC = 8 × the block's mean after the level shift, quantised.
            let q = ((mean - 128) * 8) / i32::from(QUANT);
            let diff = q - previous;
            previous = q;
            let category = 32 - diff.unsigned_abs().leading_zeros();
            let (code, len) = dc[category as usize];
            bits.put(code, len);
            if category > 0 {
                let extra = if diff >= 0 {
                    diff
                } else {
                    diff + (1 << category) - 1
                };
                bits.put(extra as u16, category as u8);
            }
            bits.put(0, 1); // EOB
        }
    }
    out.extend(bits.finish());
    out.extend([0xff, 0xd9]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dc_codes_are_those_of_annex_k() {
        let dc = codes(&DC_BITS, &DC_VALUES);
        assert_eq!(dc[0], (0b00, 2));
        assert_eq!(dc[1], (0b010, 3));
        assert_eq!(dc[5], (0b110, 3));
        assert_eq!(dc[6], (0b1110, 4));
        assert_eq!(dc[11], (0b1_1111_1110, 9));
    }

    #[test]
    fn a_photo_is_a_framed_jpeg_of_a_few_kilobytes() {
        let photo = jpeg(7);
        assert_eq!(&photo[..4], &[0xff, 0xd8, 0xff, 0xe0]);
        assert_eq!(&photo[photo.len() - 2..], &[0xff, 0xd9]);
        assert!((1_000..8_000).contains(&photo.len()), "{}", photo.len());
        // No marker inside the entropy-coded data but stuffed 0xFF 0x00.
        let sos = photo.windows(2).position(|w| w == [0xff, 0xda]).unwrap();
        let data = &photo[sos + 10..photo.len() - 2];
        for pair in data.windows(2) {
            if pair[0] == 0xff {
                assert_eq!(pair[1], 0);
            }
        }
        assert_ne!(jpeg(1), jpeg(2));
    }
}
