//! Who a terminal is. Registration (0x0100) hands a known terminal an
//! authentication code; authentication (0x0102) turns that code into the
//! vehicle the terminal is bound to. Terminals the directory does not know,
//! or that are bound to no vehicle, are refused. What an authenticated
//! terminal can stream (its 0x1003 audio/video attributes) is reported
//! back, so video is offered only for vehicles with cameras. The maker a
//! terminal registered with decides how its vendor items are read
//! ([`Directory::maker`]).
//!
//! The vehicle service's terminal bindings are the directory of a real
//! deployment ([`grpc::GrpcDirectory`]); [`StaticDirectory`] serves a fixed
//! fleet: tests and a stand-alone edge.

pub mod grpc;

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

use crate::jt808::message::{AvAttributes, RegisterResult, Registration};

/// The vehicle a terminal reports for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub enterprise_id: String,
    pub vehicle_id: String,
}

/// The answer to a registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Registered {
    Accepted { auth_code: String },
    Refused(RegisterResult),
}

/// The directory could not be asked (the terminal should retry later).
#[derive(Debug, thiserror::Error)]
#[error("terminal directory unavailable: {0}")]
pub struct DirectoryError(pub String);

pub trait Directory: Send + Sync + 'static {
    fn register(
        &self,
        terminal: &str,
        registration: &Registration,
    ) -> impl Future<Output = Result<Registered, DirectoryError>> + Send;

    /// The binding of a terminal presenting `code`; `None` refuses it.
    fn authenticate(
        &self,
        terminal: &str,
        code: &str,
    ) -> impl Future<Output = Result<Option<Binding>, DirectoryError>> + Send;

    /// Stores what an authenticated terminal can stream (0x1003).
    fn report_av_attributes(
        &self,
        terminal: &str,
        attributes: &AvAttributes,
    ) -> impl Future<Output = Result<(), DirectoryError>> + Send;

    /// The maker id `terminal` registered with, where the directory keeps
    /// it: its vendor items are read by it. `None` when not kept.
    fn maker(
        &self,
        _terminal: &str,
    ) -> impl Future<Output = Result<Option<String>, DirectoryError>> + Send {
        std::future::ready(Ok(None))
    }
}

/// A shared directory (a test keeps a handle to read what was reported).
impl<D: Directory> Directory for Arc<D> {
    fn register(
        &self,
        terminal: &str,
        registration: &Registration,
    ) -> impl Future<Output = Result<Registered, DirectoryError>> + Send {
        D::register(self, terminal, registration)
    }

    fn authenticate(
        &self,
        terminal: &str,
        code: &str,
    ) -> impl Future<Output = Result<Option<Binding>, DirectoryError>> + Send {
        D::authenticate(self, terminal, code)
    }

    fn report_av_attributes(
        &self,
        terminal: &str,
        attributes: &AvAttributes,
    ) -> impl Future<Output = Result<(), DirectoryError>> + Send {
        D::report_av_attributes(self, terminal, attributes)
    }

    fn maker(
        &self,
        terminal: &str,
    ) -> impl Future<Output = Result<Option<String>, DirectoryError>> + Send {
        D::maker(self, terminal)
    }
}

/// A fixed fleet: terminal → vehicle. Codes are issued at registration and
/// kept in memory with the maker registered, as are the attributes
/// terminals report.
#[derive(Debug, Default)]
pub struct StaticDirectory {
    bindings: HashMap<String, Binding>,
    codes: Mutex<HashMap<String, String>>,
    makers: Mutex<HashMap<String, String>>,
    attributes: Mutex<HashMap<String, AvAttributes>>,
}

impl StaticDirectory {
    pub fn new(bindings: impl IntoIterator<Item = (String, Binding)>) -> StaticDirectory {
        StaticDirectory {
            bindings: bindings.into_iter().collect(),
            codes: Mutex::default(),
            makers: Mutex::default(),
            attributes: Mutex::default(),
        }
    }

    /// The attributes `terminal` last reported.
    pub fn av_attributes(&self, terminal: &str) -> Option<AvAttributes> {
        self.attributes
            .lock()
            .expect("attributes lock")
            .get(terminal)
            .copied()
    }
}

impl Directory for StaticDirectory {
    async fn register(
        &self,
        terminal: &str,
        registration: &Registration,
    ) -> Result<Registered, DirectoryError> {
        if !self.bindings.contains_key(terminal) {
            return Ok(Registered::Refused(RegisterResult::NoSuchTerminal));
        }
        self.makers
            .lock()
            .expect("makers lock")
            .insert(terminal.to_owned(), registration.manufacturer.clone());
        let code = format!("{:032x}", rand::random::<u128>());
        self.codes
            .lock()
            .expect("codes lock")
            .insert(terminal.to_owned(), code.clone());
        Ok(Registered::Accepted { auth_code: code })
    }

    async fn authenticate(
        &self,
        terminal: &str,
        code: &str,
    ) -> Result<Option<Binding>, DirectoryError> {
        let issued = self
            .codes
            .lock()
            .expect("codes lock")
            .get(terminal)
            .cloned();
        Ok(match issued {
            Some(issued) if !code.is_empty() && issued == code => {
                self.bindings.get(terminal).cloned()
            }
            _ => None,
        })
    }

    async fn report_av_attributes(
        &self,
        terminal: &str,
        attributes: &AvAttributes,
    ) -> Result<(), DirectoryError> {
        if self.bindings.contains_key(terminal) {
            self.attributes
                .lock()
                .expect("attributes lock")
                .insert(terminal.to_owned(), *attributes);
        }
        Ok(())
    }

    async fn maker(&self, terminal: &str) -> Result<Option<String>, DirectoryError> {
        Ok(self
            .makers
            .lock()
            .expect("makers lock")
            .get(terminal)
            .cloned())
    }
}
