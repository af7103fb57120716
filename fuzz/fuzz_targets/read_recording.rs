//! The recording reader on arbitrary bytes: it must return records or an error naming a
//! byte offset, never panic, hang or allocate what the bytes ask for.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netarena::record::Reader;

fuzz_target!(|data: &[u8]| {
    // Half the inputs get a valid header, so the fuzzer spends its time on records.
    let mut framed = b"NAREC\0".to_vec();
    framed.extend_from_slice(&netarena::record::format::VERSION.to_le_bytes());
    framed.extend_from_slice(data);
    for bytes in [data, &framed[..]] {
        if let Ok(reader) = Reader::new(bytes) {
            for record in reader {
                if record.is_err() {
                    break;
                }
            }
        }
    }
});
