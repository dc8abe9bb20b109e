/*
 * acl/ops/acl_dvpp.h from C, as the samples use it (built with
 * -DENABLE_DVPP_INTERFACE): enum values, media memory, a picture description,
 * the image information of a JPEG file, an enum value C may pass that is no
 * enumerator, and a processing call refused with a message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static void OnFrame(acldvppStreamDesc *input, acldvppPicDesc *output,
                    void *userData) {
  (void)input;
  (void)output;
  (void)userData;
}

int main(void) {
  void *media = NULL;
  unsigned char jpeg[1024];
  size_t jpeg_size = 0;
  uint32_t width = 0, height = 0, dec_size = 0;
  int32_t components = 0;
  acldvppJpegFormat format = ACL_JPEG_CSS_UNKNOWN;
  acldvppPicDesc *pic = NULL;
  acldvppChannelDesc *channel = NULL;
  acldvppStreamDesc *stream = NULL;
  acldvppBorderConfig *border = NULL;
  uint32_t mode = 1;
  size_t mode_size = 0;
  aclvdecChannelDesc *vdec = NULL;
  FILE *file = NULL;

  /* The SDK's numbers. */
  CHECK(sizeof(acldvppPixelFormat) == 4);
  CHECK(PIXEL_FORMAT_BGRA_8565 == 40 && PIXEL_FORMAT_RGB_BAYER_8BPP == 50);
  CHECK(PIXEL_FORMAT_S64C1 == 84 && PIXEL_FORMAT_BUTT == 1003);
  CHECK(PIXEL_FORMAT_UNKNOWN == 10000 && H264_HIGH_LEVEL == 3);
  CHECK(DVPP_CHNMODE_PNGD == 8 && ACL_JPEG_CSS_UNKNOWN == 1000);
  CHECK(ACL_VENC_MAX_IP_PROP_UINT32 == 12 && ACL_VDEC_BIT_DEPTH_UINT32 == 10);
  CHECK(ACL_DVPP_JPEGD_PRECISION_MODE_ENUM == 5);

  CHECK(aclInit(NULL) == ACL_SUCCESS);
  CHECK(acldvppMalloc(&media, 1000) == ACL_SUCCESS);
  CHECK(((uintptr_t)media & 127) == 0);
  memset(media, 1, 1000);
  CHECK(acldvppFree(media) == ACL_SUCCESS);
  CHECK(acldvppFree(media) == ACL_ERROR_RT_PARAM_INVALID);

  pic = acldvppCreatePicDesc();
  CHECK(pic != NULL);
  CHECK(acldvppSetPicDescFormat(pic, PIXEL_FORMAT_YUV_SEMIPLANAR_420) ==
        ACL_SUCCESS);
  CHECK(acldvppSetPicDescWidth(pic, 224) == ACL_SUCCESS);
  CHECK(acldvppGetPicDescWidth(pic) == 224);
  CHECK(acldvppGetPicDescFormat(pic) == PIXEL_FORMAT_YUV_SEMIPLANAR_420);
  /* C passes any int as an enum: refused, and the value is kept. */
  CHECK(acldvppSetPicDescFormat(pic, (acldvppPixelFormat)999) ==
        ACL_ERROR_INVALID_PARAM);
  CHECK(strstr(aclGetRecentErrMsg(), "format 999") != NULL);
  CHECK(acldvppGetPicDescFormat(pic) == PIXEL_FORMAT_YUV_SEMIPLANAR_420);
  CHECK(acldvppDestroyPicDesc(pic) == ACL_SUCCESS);

  stream = acldvppCreateStreamDesc();
  CHECK(acldvppSetStreamDescFormat(stream, (acldvppStreamFormat)4) ==
        ACL_ERROR_INVALID_PARAM);
  CHECK(strstr(aclGetRecentErrMsg(),
               "format 4 is not an acldvppStreamFormat") != NULL);
  CHECK(acldvppSetStreamDescFormat(stream, (acldvppStreamFormat)-1) ==
        ACL_ERROR_INVALID_PARAM);
  CHECK(acldvppGetStreamDescFormat(stream) == H265_MAIN_LEVEL);
  CHECK(acldvppDestroyStreamDesc(stream) == ACL_SUCCESS);
  border = acldvppCreateBorderConfig();
  CHECK(acldvppSetBorderConfigBorderType(border, (acldvppBorderType)4) ==
        ACL_ERROR_INVALID_PARAM);
  CHECK(acldvppDestroyBorderConfig(border) == ACL_SUCCESS);

  vdec = aclvdecCreateChannelDesc();
  CHECK(aclvdecSetChannelDescCallback(vdec, OnFrame) == ACL_SUCCESS);
  CHECK(aclvdecGetChannelDescCallback(vdec) == OnFrame);
  CHECK(aclvdecDestroyChannelDesc(vdec) == ACL_SUCCESS);

  file = fopen("testdata/images/exif_orientation_6.jpg", "rb");
  CHECK(file != NULL);
  if (file != NULL) {
    jpeg_size = fread(jpeg, 1, sizeof(jpeg), file);
    fclose(file);
  }
  CHECK(acldvppJpegGetImageInfoV2(jpeg, (uint32_t)jpeg_size, &width, &height,
                                  &components, &format) == ACL_SUCCESS);
  CHECK(width == 16 && height == 48 && components == 3);
  CHECK(format == ACL_JPEG_CSS_420);
  CHECK(acldvppJpegPredictDecSize(jpeg, (uint32_t)jpeg_size,
                                  PIXEL_FORMAT_YVU_SEMIPLANAR_420,
                                  &dec_size) == ACL_SUCCESS);
  CHECK(dec_size == 128 * 48 * 3 / 2);

  channel = acldvppCreateChannelDesc();
  CHECK(acldvppSetChannelDescParam(channel, (acldvppChannelDescParamType)99,
                                   sizeof(mode),
                                   &mode) == ACL_ERROR_INVALID_PARAM);
  CHECK(strstr(aclGetRecentErrMsg(),
               "paramType 99 is not an acldvppChannelDescParamType") != NULL);
  CHECK(acldvppGetChannelDescParam(channel, (acldvppChannelDescParamType)-7,
                                   sizeof(mode), &mode_size,
                                   &mode) == ACL_ERROR_INVALID_PARAM);
  CHECK(acldvppCreateChannel(channel) == ACL_ERROR_FEATURE_UNSUPPORTED);
  CHECK(strstr(aclGetRecentErrMsg(), "no media processor") != NULL);
  CHECK(acldvppDestroyChannelDesc(channel) == ACL_SUCCESS);
  CHECK(aclFinalize() == ACL_SUCCESS);
  if (failures > 0) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("dvpp_c_test: all checks passed\n");
  return 0;
}
