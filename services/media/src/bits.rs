//! Bit-level reading of H.264 and H.265 parameter sets: both escape start
//! codes the same way and code their fields in exp-Golomb.

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Error {
    #[error("the parameter set ends early")]
    Truncated,
    #[error("the parameter set is invalid: {0}")]
    Invalid(&'static str),
}

/// Removes emulation-prevention bytes (`00 00 03` → `00 00`).
pub(crate) fn unescape(ebsp: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(ebsp.len());
    let mut zeros = 0;
    for &b in ebsp {
        if zeros >= 2 && b == 3 {
            zeros = 0;
            continue;
        }
        zeros = if b == 0 { zeros + 1 } else { 0 };
        out.push(b);
    }
    out
}

pub(crate) struct BitReader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> BitReader<'a> {
    pub(crate) fn new(data: &'a [u8]) -> BitReader<'a> {
        BitReader { data, pos: 0 }
    }

    pub(crate) fn bit(&mut self) -> Result<bool, Error> {
        let byte = self.data.get(self.pos / 8).ok_or(Error::Truncated)?;
        let bit = byte >> (7 - self.pos % 8) & 1;
        self.pos += 1;
        Ok(bit == 1)
    }

    pub(crate) fn bits(&mut self, n: u32) -> Result<u32, Error> {
        let mut v = 0;
        for _ in 0..n {
            v = v << 1 | u32::from(self.bit()?);
        }
        Ok(v)
    }

    /// Unsigned exp-Golomb.
    pub(crate) fn ue(&mut self) -> Result<u32, Error> {
        let mut zeros = 0;
        while !self.bit()? {
            zeros += 1;
            if zeros > 31 {
                return Err(Error::Invalid("exp-Golomb code too long"));
            }
        }
        let rest = self.bits(zeros)?;
        Ok(((1u64 << zeros) - 1 + u64::from(rest)).min(u64::from(u32::MAX)) as u32)
    }

    /// Signed exp-Golomb.
    pub(crate) fn se(&mut self) -> Result<i64, Error> {
        let k = i64::from(self.ue()?);
        Ok(if k % 2 == 1 { (k + 1) / 2 } else { -(k / 2) })
    }
}
