//! `private_key_jwt` (RFC 7523 §2.2): a short-lived JWT the client signs with its private
//! key, sent as the `client_assertion` of a token request. ES256 (a P-256 key) and RS256
//! (an RSA key), both from a PKCS#8 PEM, signed with ring.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ring::rand::SystemRandom;
use ring::signature::{
    EcdsaKeyPair, RsaKeyPair, ECDSA_P256_SHA256_FIXED_SIGNING, RSA_PKCS1_SHA256,
};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::PrivatePkcs8KeyDer;
use serde_json::json;

use super::{random_token, AuthError, Secret};

/// The signing algorithm of a client key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SigningAlgorithm {
    /// ECDSA with P-256 and SHA-256.
    Es256,
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    Rs256,
}

impl SigningAlgorithm {
    /// `ES256` or `RS256`; `None` for anything else.
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "ES256" => Some(Self::Es256),
            "RS256" => Some(Self::Rs256),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Es256 => "ES256",
            Self::Rs256 => "RS256",
        }
    }
}

/// A client's private key for `private_key_jwt`. `Debug` shows the algorithm only.
#[derive(Clone)]
pub struct ClientKey {
    pkcs8: Secret,
    algorithm: SigningAlgorithm,
}

impl std::fmt::Debug for ClientKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientKey")
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

impl ClientKey {
    /// A key from a PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), checked now.
    ///
    /// # Errors
    ///
    /// [`AuthError::PrivateKey`] when the PEM holds no PKCS#8 key or one that does not fit
    /// the algorithm.
    pub fn from_pem(pem: &str, algorithm: SigningAlgorithm) -> Result<Self, AuthError> {
        let der = PrivatePkcs8KeyDer::from_pem_slice(pem.as_bytes()).map_err(|_| {
            AuthError::PrivateKey {
                reason: "no PKCS#8 `BEGIN PRIVATE KEY` block",
            }
        })?;
        let key = Self {
            pkcs8: Secret::new(URL_SAFE_NO_PAD.encode(der.secret_pkcs8_der())),
            algorithm,
        };
        key.sign(b"check")?;
        Ok(key)
    }

    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, AuthError> {
        let der =
            URL_SAFE_NO_PAD
                .decode(self.pkcs8.expose())
                .map_err(|_| AuthError::PrivateKey {
                    reason: "the key cannot be decoded",
                })?;
        let rng = SystemRandom::new();
        match self.algorithm {
            SigningAlgorithm::Es256 => {
                let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der, &rng)
                    .map_err(|_| AuthError::PrivateKey {
                    reason: "not a P-256 key for ES256",
                })?;
                pair.sign(&rng, message)
                    .map(|signature| signature.as_ref().to_vec())
                    .map_err(|_| AuthError::PrivateKey {
                        reason: "signing failed",
                    })
            }
            SigningAlgorithm::Rs256 => {
                let pair = RsaKeyPair::from_pkcs8(&der).map_err(|_| AuthError::PrivateKey {
                    reason: "not an RSA key for RS256",
                })?;
                let mut signature = vec![0; pair.public().modulus_len()];
                pair.sign(&RSA_PKCS1_SHA256, &rng, message, &mut signature)
                    .map_err(|_| AuthError::PrivateKey {
                        reason: "signing failed",
                    })?;
                Ok(signature)
            }
        }
    }

    /// A client assertion for `client_id` addressed to `audience` (the issuer), valid for
    /// five minutes.
    pub(crate) fn assertion(&self, client_id: &str, audience: &str) -> Result<Secret, AuthError> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        let header = json!({"alg": self.algorithm.name(), "typ": "JWT"});
        let claims = json!({
            "iss": client_id, "sub": client_id, "aud": audience,
            "iat": now, "exp": now + 300, "jti": random_token()?,
        });
        let signing_input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self.sign(signing_input.as_bytes())?;
        Ok(Secret::new(format!(
            "{signing_input}.{}",
            URL_SAFE_NO_PAD.encode(signature)
        )))
    }
}
