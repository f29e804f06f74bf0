import numpy as np
pictures = np.random.rand(40, 24, 24, 1)
kinds = np.random.randint(0, 3, 40)
