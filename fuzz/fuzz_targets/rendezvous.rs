//! The rendezvous wire format (rccl/src/rendezvous.rs): frame heads,
//! greetings and answers read from arbitrary bytes. Whatever parses
//! re-encodes to the same bytes; whatever is encoded parses back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rccl::rendezvous::fuzzing::*;
use rccl::{RendezvousError, UniqueId};

/// `bytes` as a frame head: accepted only with the tag and a length of at
/// most `max`, and the length is the one written.
fn check_frame(bytes: &[u8], max: usize) {
    let Some(head) = bytes.get(..12) else {
        return;
    };
    let head: &[u8; 12] = head.try_into().unwrap();
    let written = u32::from_be_bytes(head[8..].try_into().unwrap()) as usize;
    match frame_len(head, max) {
        Ok(len) => {
            assert!(len <= max && len == written);
            assert_eq!(&head[..8], FRAME_TAG);
        }
        Err(_) => assert!(&head[..8] != FRAME_TAG || written > max),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, body)) = data.split_first() else {
        return;
    };
    match which % 3 {
        0 => {
            check_frame(body, ANSWER_MAX);
            check_frame(body, 8 + 256);
        }
        1 => {
            // Rank 0 reading a greeting.
            if let Ok((rank, world, job_id)) = parse_hello(body) {
                let msg = hello(rank as u32, world as u32, &job_id);
                assert_eq!(rank as u32 as usize, rank);
                assert_eq!(world as u32 as usize, world);
                assert_eq!(&msg[12..], body, "a parsed greeting re-encodes differently");
                let head: &[u8; 12] = msg[..12].try_into().unwrap();
                assert_eq!(frame_len(head, usize::MAX).unwrap(), body.len());
            } else {
                assert!(body.len() < 8 || std::str::from_utf8(&body[8..]).is_err());
            }
            // Any rank, world size and id text survive the trip.
            if body.len() >= 8 {
                let r = u32::from_le_bytes(body[..4].try_into().unwrap());
                let w = u32::from_le_bytes(body[4..8].try_into().unwrap());
                let id = String::from_utf8_lossy(&body[8..]);
                let msg = hello(r, w, &id);
                let (pr, pw, pid) = parse_hello(&msg[12..]).unwrap();
                assert_eq!((pr, pw, pid.as_str()), (r as usize, w as usize, &*id));
            }
        }
        _ => {
            // The joining side reading rank 0's answer.
            match parse_answer(body) {
                Ok(id) => {
                    assert_eq!(&answer(Ok(&id))[12..], body);
                }
                Err(RendezvousError::Refused(reason)) => {
                    assert_eq!(body[0], 1);
                    let sent = &body[1..];
                    if std::str::from_utf8(sent).is_ok() && sent.len() <= REASON_MAX {
                        assert_eq!(reason.as_bytes(), sent);
                        assert_eq!(&answer(Err(&reason))[12..], body);
                    }
                }
                Err(RendezvousError::Malformed(_)) => {
                    assert!(body.first() != Some(&1));
                }
                Err(e) => panic!("an answer's parse gave {e:?}"),
            }
            // An encoded reason always parses back (cut at REASON_MAX on a
            // character boundary).
            let reason = String::from_utf8_lossy(body);
            let msg = answer(Err(&reason));
            match parse_answer(&msg[12..]) {
                Err(RendezvousError::Refused(back)) => {
                    assert!(back.len() <= REASON_MAX && reason.starts_with(&back));
                }
                other => panic!("a refusal came back as {other:?}"),
            }
            if body.len() >= 128 {
                let id = UniqueId::from_bytes(body[..128].try_into().unwrap());
                assert_eq!(parse_answer(&answer(Ok(&id))[12..]).unwrap(), id);
            }
        }
    }
});
