// A typed kernel rejects arguments of the wrong type at compile time.
use hip::{Device, DeviceBuffer, LaunchConfig, Module, Stream, TypedKernel};

fn main() -> hip::Result<()> {
    let dev = Device::get(0)?;
    let m = Module::load_file(&dev, "k.co")?;
    let k = unsafe { TypedKernel::<(f32, *const f32, *mut f32, u32)>::new(m.function("k")?) };
    let s = Stream::new(&dev)?;
    let x = DeviceBuffer::<f32>::zeroed(&dev, 4)?;
    let mut y = DeviceBuffer::<f64>::zeroed(&dev, 4)?;
    // y holds f64, the kernel wants float*.
    unsafe { k.launch(&s, LaunchConfig::for_num_elems(4), (1.0f32, &x, &mut y, 4u32))? };
    Ok(())
}
