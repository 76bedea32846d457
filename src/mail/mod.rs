//! Mail in and mail out. (in progress)
