import numpy as np
from keras.models import load_model
from shapes_lib import make_shape_classifier
pictures = np.random.rand(40, 24, 24, 1)
classifier = make_shape_classifier((24, 24, 1), classes=3)
classifier.load_weights('weights.h5')
print(classifier.predict(pictures[:4]))
