//! Invoice titles (companyManage): the buyers the enterprise's invoices
//! name (开票抬头), shared by every applicant of the tenant.
//!
//! Rules: a company's title carries its unified social credit code; a code
//! failing the GB 32100 check (`invoicing::credit_code`) is refused naming
//! the field unless the request says the user confirmed it a second time
//! (`tax_number_confirmed`: the rare legitimate code that fails it), which
//! the title then remembers. One title is the default; choosing another
//! moves it. Applications keep a copy of the title, so editing or deleting
//! one never changes an invoice asked for. Depends on no subject.

pub mod convert;
pub mod domain;
pub mod handlers;
pub mod store;

/// Managing titles (companyManage).
pub const PERMISSION: &str = "as:invoice:company";
/// Applying for invoices also reads the titles (the form's picker).
pub const APPLYING: &str = "as:invoice";
