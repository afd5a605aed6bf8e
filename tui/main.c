/* The stock asynctop binary: the command line with the stock adapters. */
#include "adapters/asynctop.h"

int main(int argc, char **argv)
{
	return asynctop_main(argc, argv, NULL, 0);
}
