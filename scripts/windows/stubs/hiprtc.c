/* Stand-in for hiprtcMMmm.dll: reports its SDK's major and minor version,
 * so a test can tell which hiprtc the loader bound. */
#define EXPORT __declspec(dllexport)

EXPORT int hiprtcVersion(int *major, int *minor)
{
    if (!major || !minor) return 1; /* HIPRTC_ERROR_INVALID_INPUT */
    *major = STUB_MAJOR;
    *minor = STUB_MINOR;
    return 0;
}

EXPORT const char *hiprtcGetErrorString(int result)
{
    return result == 0 ? "HIPRTC_SUCCESS" : "HIPRTC_ERROR_INVALID_INPUT";
}
