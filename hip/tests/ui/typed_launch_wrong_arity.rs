// A typed kernel rejects a wrong number of arguments.
use hip::{Device, DeviceBuffer, LaunchConfig, Module, Stream, TypedKernel};

fn main() -> hip::Result<()> {
    let dev = Device::get(0)?;
    let m = Module::load_file(&dev, "k.co")?;
    let k = unsafe { TypedKernel::<(*const f32, *mut f32, u32)>::new(m.function("k")?) };
    let s = Stream::new(&dev)?;
    let x = DeviceBuffer::<f32>::zeroed(&dev, 4)?;
    let mut y = DeviceBuffer::<f32>::zeroed(&dev, 4)?;
    unsafe { k.launch(&s, LaunchConfig::for_num_elems(4), (&x, &mut y))? };
    Ok(())
}
