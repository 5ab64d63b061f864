//! The envelope's error answers in the OpenAPI document: each operation lists
//! the codes it can really answer, derived from what it declares — its access
//! (public routes never answer 1001, only permission-guarded ones 9999), its
//! inputs (4000 needs input, 4004 something to look up), its method (4009 on
//! signed-in writes and reads of one record) and the attempt limits (4029 on
//! sign-in, password checks and the public share link). Answers an operation already documents are
//! kept as written.

use serde_json::{Value, json};

use crate::access::{Access, access_of};

/// The component every error answer refers to.
const SCHEMA: &str = "ErrorEnvelope";

const METHODS: [&str; 5] = ["get", "put", "post", "delete", "patch"];

/// Operations behind attempt limits or the bounded password hasher: sign-in,
/// SMS codes, the password checks and the public share link (per address).
const LIMITED: [&str; 5] = [
    "/api/v1/auth/login",
    "/api/v1/auth/sms-code",
    "/api/v1/auth/password",
    "/api/v1/auth/password/reset-by-phone",
    "/api/v1/public/temperature/{token}",
];

/// (HTTP status, description) of each error answer an operation can give.
fn answers_of(path: &str, method: &str, op: &Value) -> Vec<(u16, &'static str)> {
    let access = op
        .get("security")
        .and_then(Value::as_array)
        .map_or(Access::Public, |r| access_of(r));
    let params = op
        .get("parameters")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let has_path_param = params.iter().any(|p| p["in"] == "path");
    let has_query = params.iter().any(|p| p["in"] == "query");
    let has_body = op.get("requestBody").is_some();
    let write = method != "get";
    let limited = LIMITED.contains(&path);
    let mut answers = Vec::new();
    if has_path_param || has_query || has_body {
        answers.push((400, "4000: invalid input; data.fields names each field"));
    }
    match access {
        Access::Public => {}
        Access::Personal | Access::SignedIn => {
            answers.push((
                401,
                "1001: not signed in or the session expired; 1016: the session was ended elsewhere",
            ));
        }
        Access::AnyOf(_) => {
            answers.push((
                401,
                "1001: not signed in or the session expired; 1016: the session was ended elsewhere",
            ));
            answers.push((403, "9999: the permission this operation needs is missing"));
        }
    }
    if has_path_param || has_body || has_query {
        answers.push((
            404,
            "4004: something the input names does not exist (also another enterprise's)",
        ));
    }
    // A path value left empty ('/drivers//reveal' arrives as '/drivers/reveal')
    // makes the path another route's, which may not take this method.
    if has_path_param {
        answers.push((
            405,
            "4005: with a path value left empty the path is another route's, which does not take this method",
        ));
    }
    // A signed-in write, or a read of one record whose state may refuse it
    // (an export that failed has no file). Public writes (sign-in, SMS codes)
    // change no shared state that could conflict.
    if (write || has_path_param) && access != Access::Public {
        answers.push((
            409,
            "4009: the state changed or the value is taken (data.fields names a taken value)",
        ));
    }
    if limited {
        answers.push((
            429,
            "4029: too many attempts; Retry-After gives the seconds to wait",
        ));
    }
    answers.push((500, "5000: an internal error"));
    answers.push((503, "5003: a service is unavailable"));
    answers
}

/// Adds the error answers to every operation of the document (as JSON).
pub fn document(doc: &mut Value) {
    let schema_ref = json!({ "$ref": format!("#/components/schemas/{SCHEMA}") });
    if let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) {
        for (path, item) in paths.iter_mut() {
            for method in METHODS {
                let Some(op) = item.get_mut(method) else {
                    continue;
                };
                let answers = answers_of(path, method, op);
                let responses = op
                    .as_object_mut()
                    .expect("an operation is an object")
                    .entry("responses")
                    .or_insert_with(|| json!({}));
                for (status, description) in answers {
                    responses
                        .as_object_mut()
                        .expect("responses is an object")
                        .entry(status.to_string())
                        .or_insert_with(|| {
                            json!({
                                "description": description,
                                "content": { "application/json": { "schema": schema_ref.clone() } }
                            })
                        });
                }
            }
        }
    }
    let schemas = doc
        .as_object_mut()
        .expect("the document is an object")
        .entry("components")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .expect("components is an object")
        .entry("schemas")
        .or_insert_with(|| json!({}));
    schemas[SCHEMA] = json!({
        "type": "object",
        "description": "An error answer of the envelope: code is the edge code, msg the text to show.",
        "required": ["code", "msg", "data"],
        "properties": {
            "code": { "type": "integer", "format": "int32", "minimum": 0 },
            "msg": { "type": "string" },
            "data": {
                "type": ["object", "null"],
                "description": "For 4000, {fields: [{field, message}]}; for a 4009 naming the value that is taken, the same; otherwise null."
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statuses(path: &str, method: &str, op: &Value) -> Vec<u16> {
        answers_of(path, method, op)
            .into_iter()
            .map(|(s, _)| s)
            .collect()
    }

    #[test]
    fn public_routes_do_not_answer_1001_and_only_guarded_ones_9999() {
        let login = json!({ "security": [{}], "requestBody": {} });
        assert_eq!(
            statuses("/api/v1/auth/login", "post", &login),
            vec![400, 404, 429, 500, 503]
        );
        let me = json!({ "security": [{ "token": [] }] });
        assert_eq!(statuses("/api/v1/me", "get", &me), vec![401, 500, 503]);
        let guarded = json!({
            "security": [{ "token": ["a"] }],
            "parameters": [{ "in": "path", "name": "id" }]
        });
        assert_eq!(
            statuses("/api/v1/system/roles/{id}", "delete", &guarded),
            vec![400, 401, 403, 404, 405, 409, 500, 503]
        );
    }

    #[test]
    fn the_whole_document_reads_back_with_every_operation_documented() {
        let json = serde_json::to_value(crate::api().1).unwrap();
        for (path, item) in json["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                let responses = op["responses"].as_object().unwrap();
                assert!(responses.contains_key("500"), "{method} {path}");
            }
        }
    }

    #[test]
    fn documented_answers_are_kept_and_the_schema_is_added() {
        let mut doc = json!({ "paths": { "/api/v1/me": { "get": {
            "security": [{ "token": [] }],
            "responses": { "200": { "description": "ok" }, "401": { "description": "mine" } }
        } } } });
        document(&mut doc);
        let responses = &doc["paths"]["/api/v1/me"]["get"]["responses"];
        assert_eq!(responses["401"]["description"], "mine");
        assert_eq!(
            responses["500"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/ErrorEnvelope"
        );
        assert!(doc["components"]["schemas"]["ErrorEnvelope"].is_object());
    }
}
