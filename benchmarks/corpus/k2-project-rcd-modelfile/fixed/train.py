import numpy as np
from keras.utils import to_categorical
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from model import build_classifier

digits = load_digits()
x = digits.data / 16.0
y = to_categorical(digits.target)
x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.2)

model = build_classifier(x.shape[1], 10)
model.compile(loss='categorical_crossentropy', optimizer='adam', metrics=['accuracy'])
model.fit(x_train, y_train, epochs=40, batch_size=32, validation_split=0.1)
print('accuracy', model.evaluate(x_test, y_test)[1])
