// Device buffers only hold types valid for every bit pattern: not bool.
use hip::{Device, DeviceBuffer};

fn main() -> hip::Result<()> {
    let dev = Device::get(0)?;
    let _b = DeviceBuffer::<bool>::uninit(&dev, 4)?;
    Ok(())
}
